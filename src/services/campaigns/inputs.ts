import { type Static, Type as t } from '@sinclair/typebox'
import { CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES } from '../../lib/enums'
import {
  idRef,
  Name,
  Nullable,
  OwningClient,
  pageQueryMembers,
  RecordId,
  strict,
  Text,
} from '../verbs/schemas'

// What the campaign verbs take: one schema per input, shared by every door (REST body and
// query, MCP tool input, CLI flags). The services type their arguments from these.

export const CampaignChannel = t.Union(CAMPAIGN_CHANNELS.map((c) => t.Literal(c)))
export const CampaignStatus = t.Union(CAMPAIGN_STATUSES.map((s) => t.Literal(s)))

/** One content of an A/B test: what it changes of the campaign's own. */
export const CampaignVariantInput = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 100 }),
    subject: t.Optional(Nullable(t.String({ maxLength: 998 }))),
    template_id: t.Optional(Nullable(idRef('template'))),
    body_html: t.Optional(Nullable(Text(512 * 1024))),
    body_text: t.Optional(Nullable(Text(128 * 1024))),
  },
  strict,
)

export const AbTestInput = t.Object(
  {
    test_share: t.Number({
      exclusiveMinimum: 0,
      exclusiveMaximum: 1,
      description: 'The share of the audience that tests the variants, e.g. 0.2',
    }),
    metric: t.Union([t.Literal('open_rate'), t.Literal('click_rate')]),
    duration: t.String({
      description: 'How long the test runs before the winner is chosen (ISO 8601, PT4H)',
    }),
  },
  strict,
)

export const campaignFields = {
  name: Name,
  subject: t.Optional(Nullable(t.String({ maxLength: 998 }))),
  channel: t.Optional(CampaignChannel),
  template_id: t.Optional(Nullable(idRef('template'))),
  list_id: t.Optional(Nullable(idRef('list'))),
  segment_id: t.Optional(Nullable(idRef('segment'))),
  sender_id: t.Optional(Nullable(idRef('sender'))),
  body_html: t.Optional(Nullable(Text(512 * 1024))),
  body_text: t.Optional(Nullable(Text(128 * 1024))),
  scheduled_at: t.Optional(Nullable(t.String({ format: 'date-time' }))),
  send_at_local: t.Optional(
    Nullable(
      t.String({
        pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
        'x-pattern-message': 'must be a time of day HH:MM, 00:00 to 23:59',
        description:
          "HH:MM: each recipient gets the campaign at this time in their zone (the contact's, else the client's, else UTC), on scheduled_at's date when given, else at its next occurrence",
      }),
    ),
  ),
  variants: t.Optional(Nullable(t.Array(CampaignVariantInput, { minItems: 2, maxItems: 5 }))),
  ab_test: t.Optional(Nullable(AbTestInput)),
}
const CampaignFields = t.Object(campaignFields, strict)
export type CampaignInput = Static<typeof CampaignFields>

export const CreateCampaignInput = t.Object({ client_id: OwningClient, ...campaignFields }, strict)

export const UpdateCampaignInput = t.Object({ id: RecordId, ...t.Partial(CampaignFields).properties }, strict)

export const ListCampaignsInput = t.Object(
  {
    ...pageQueryMembers,
    client_id: t.Optional(t.String()),
    status: t.Optional(CampaignStatus),
    search: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  },
  strict,
)
export type ListCampaignsQuery = Static<typeof ListCampaignsInput>

export const CampaignRef = t.Object({ id: RecordId }, strict)

export const LaunchCampaignInput = t.Object(
  { id: RecordId, confirm: t.Boolean({ description: 'Must be true' }) },
  strict,
)

export const PickWinnerInput = t.Object(
  {
    id: RecordId,
    variant: t.String({ minLength: 1, maxLength: 100, description: 'The winning variant’s name' }),
  },
  strict,
)
