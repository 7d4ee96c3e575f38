import { Type as t } from '@sinclair/typebox'
import {
  AbTestInput,
  CampaignChannel,
  CampaignStatus,
  CampaignVariantInput,
} from '../../services/campaigns/inputs'
import {
  campaignStatsVerb,
  cancelCampaignVerb,
  createCampaignVerb,
  deleteCampaignVerb,
  getCampaignVerb,
  launchCampaignVerb,
  listCampaignsVerb,
  pauseCampaignVerb,
  pickWinnerVerb,
  updateCampaignVerb,
} from '../../services/campaigns/verbs'
import { DateTime, dataOf, Nullable, pageOf, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const AbTestState = named(
  'AbTestState',
  t.Object(
    {
      phase: t.Union([t.Literal('waiting'), t.Literal('testing'), t.Literal('decided')]),
      started_at: Nullable(DateTime),
      decides_at: Nullable(DateTime),
      winner: Nullable(t.String({ description: 'The winning variant’s name' })),
      decided_at: Nullable(DateTime),
      reason: Nullable(t.Union([t.Literal('metric'), t.Literal('manual')])),
    },
    { description: 'Where the A/B test stands; null for a campaign without one' },
  ),
)

const Figures = {
  sent: t.Integer(),
  opened: t.Integer(),
  clicked: t.Integer(),
  open_rate: t.Number(),
  click_rate: t.Number(),
}

const Campaign = named(
  'Campaign',
  t.Object({
    id: Uuid,
    client_id: Uuid,
    name: t.String(),
    status: named('CampaignStatus', CampaignStatus),
    subject: Nullable(t.String()),
    channel: named('Channel', CampaignChannel),
    template_id: Nullable(Uuid),
    list_id: Nullable(Uuid),
    segment_id: Nullable(Uuid),
    sender_id: Nullable(Uuid),
    body_html: Nullable(t.String()),
    body_text: Nullable(t.String()),
    scheduled_at: Nullable(DateTime),
    send_at_local: Nullable(
      t.String({
        description: "HH:MM in each recipient's zone (local-time delivery); null sends to everyone at once",
      }),
    ),
    variants: Nullable(t.Array(named('CampaignVariant', CampaignVariantInput))),
    ab_test: Nullable(named('AbTest', AbTestInput)),
    ab_test_state: Nullable(AbTestState),
    total_recipients: Nullable(t.Integer()),
    total_sent: Nullable(t.Integer()),
    skipped: t.Integer(),
    failure_reason: Nullable(t.String()),
    deferred: Nullable(
      t.Object(
        {
          count: t.Integer({ description: 'Messages waiting' }),
          reason: t.Union([t.Literal('warmup'), t.Literal('throttle'), t.Literal('hourly_cap')], {
            description: 'The limit holding back the most of them',
          }),
          until: DateTime,
        },
        {
          description:
            'While a sending limit (domain warm-up, a per-domain throttle, the hourly cap) holds messages back; null otherwise',
        },
      ),
    ),
    launched_at: Nullable(DateTime),
    completed_at: Nullable(DateTime),
    created_at: DateTime,
    updated_at: DateTime,
  }),
)

const Stats = named(
  'CampaignStats',
  t.Object({
    campaign_id: Uuid,
    status: CampaignStatus,
    total_recipients: t.Integer(),
    sent: t.Integer(),
    delivered: t.Integer(),
    opened: t.Integer(),
    clicked: t.Integer(),
    replied: t.Integer(),
    bounced: t.Integer(),
    unsubscribed: t.Integer(),
    skipped: t.Integer(),
    failed: t.Integer(),
    machine_opened: t.Integer({ description: 'Opens by mail privacy proxies; not in opened or open_rate' }),
    open_rate: t.Number({ description: 'Unique opens / delivered' }),
    click_rate: t.Number({ description: 'Unique clicks / delivered' }),
    variants: t.Optional(
      t.Array(
        t.Object({
          name: t.String(),
          ...Figures,
          delivered: t.Integer(),
          winner: t.Boolean(),
          at_decision: Nullable(t.Object(Figures, { description: 'The figures the winner was chosen on' })),
        }),
        { description: 'A/B campaigns only: each variant’s figures' },
      ),
    ),
  }),
)

const tag = 'Campaigns'
const ITEM = '/api/v1/campaigns/{id}'

// One entry per route: the verb owns scope, validation and the transaction.
export const campaignOperations = [
  route(listCampaignsVerb, {
    id: 'listCampaigns',
    method: 'GET',
    path: '/api/v1/campaigns',
    tag,
    summary: 'List campaigns (filters: client_id, status, search on name)',
    query: ['limit', 'cursor', 'client_id', 'status', 'search'],
    answer: 'as-is',
    response: pageOf(Campaign),
  }),
  route(createCampaignVerb, {
    id: 'createCampaign',
    method: 'POST',
    path: '/api/v1/campaigns',
    tag,
    summary: 'Create a campaign (draft)',
    description:
      'Audience from list_id or segment_id; content from template_id or inline subject/body_html/body_text (Liquid); sender from sender_id or the client’s first verified sender.',
    query: ['client_id'],
    response: dataOf(Campaign),
    example: {
      request: {
        name: 'November newsletter',
        list_id: '0193a4f2-7c1e-7d3a-9f00-4b1c2d3e4f50',
        subject: 'What is new in November, {{ contact.first_name | default: "there" }}',
        body_html: '<p>Hello {{ contact.first_name | default: "there" }},</p><p>…</p>',
        body_text: 'Hello {{ contact.first_name | default: "there" }}, …',
        scheduled_at: '2026-11-22T09:00:00.000Z',
      },
    },
  }),
  route(getCampaignVerb, {
    id: 'getCampaign',
    method: 'GET',
    path: ITEM,
    tag,
    summary: 'Get a campaign',
    response: dataOf(Campaign),
  }),
  route(updateCampaignVerb, {
    id: 'updateCampaign',
    method: 'PATCH',
    path: ITEM,
    tag,
    summary: 'Update a draft, scheduled or paused campaign',
    response: dataOf(Campaign),
  }),
  route(deleteCampaignVerb, {
    id: 'deleteCampaign',
    method: 'DELETE',
    path: ITEM,
    tag,
    summary: 'Delete a draft or paused campaign',
    response: dataOf(t.Object({ id: Uuid, deleted: t.Boolean() })),
  }),
  route(launchCampaignVerb, {
    id: 'launchCampaign',
    method: 'POST',
    path: `${ITEM}/launch`,
    tag,
    summary: 'Launch (or resume) a campaign; needs {"confirm": true}',
    documented: { confirm: t.Literal(true, { description: 'Must be true: launching sends real messages' }) },
    example: {
      request: { confirm: true },
      response: {
        data: {
          id: '0193a4f3-1a2b-7c3d-8e4f-5a6b7c8d9e0f',
          status: 'sending',
          total_recipients: 1250,
          accepted: true,
        },
      },
    },
    description:
      'draft → scheduled when scheduled_at is ahead, else sending; scheduled → sending now; paused → sending (resumes where it stopped). Returns at once; the audience is copied into the send queue in the background.',
    response: dataOf(
      named(
        'LaunchResult',
        t.Object({
          id: Uuid,
          status: CampaignStatus,
          total_recipients: Nullable(t.Integer()),
          accepted: t.Boolean(),
        }),
      ),
    ),
  }),
  route(pauseCampaignVerb, {
    id: 'pauseCampaign',
    method: 'POST',
    path: `${ITEM}/pause`,
    tag,
    summary: 'Pause a sending or scheduled campaign (no new sends within a second)',
    response: dataOf(Campaign),
  }),
  route(cancelCampaignVerb, {
    id: 'cancelCampaign',
    method: 'POST',
    path: `${ITEM}/cancel`,
    tag,
    summary: 'Cancel a scheduled, sending or paused campaign; queued messages are dropped',
    response: dataOf(Campaign),
  }),
  route(pickWinnerVerb, {
    id: 'pickCampaignWinner',
    method: 'POST',
    path: `${ITEM}/ab-test/winner`,
    tag,
    summary: 'End an A/B test now with the variant you choose; the rest of the audience gets it',
    response: dataOf(AbTestState),
  }),
  route(campaignStatsVerb, {
    id: 'getCampaignStats',
    method: 'GET',
    path: `${ITEM}/stats`,
    tag,
    summary: 'Campaign statistics (unique opens and clicks per recipient; rates are fractions of delivered)',
    response: dataOf(Stats),
  }),
]
