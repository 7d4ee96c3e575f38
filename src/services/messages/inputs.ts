import { type Static, Type as t } from '@sinclair/typebox'
import { MESSAGE_STATUSES } from '../../lib/enums'
import { CampaignChannel } from '../campaigns/inputs'
import { idRef, Nullable, OwningClient, pageQueryMembers, RecordId, strict, Text } from '../verbs/schemas'

// What the message verbs take: one schema per input, shared by every door.

export const MessageStatus = t.Union(MESSAGE_STATUSES.map((s) => t.Literal(s)))

export const ListMessagesInput = t.Object(
  {
    ...pageQueryMembers,
    client_id: t.Optional(t.String()),
    campaign_id: t.Optional(t.String()),
    journey_id: t.Optional(t.String()),
    sequence_id: t.Optional(t.String()),
    contact_id: t.Optional(t.String()),
    status: t.Optional(MessageStatus),
  },
  strict,
)
export type ListMessagesQuery = Static<typeof ListMessagesInput>

export const MessageRef = t.Object({ id: RecordId }, strict)

export const SendMessageInput = t.Object(
  {
    client_id: OwningClient,
    contact_id: idRef('contact'),
    channel: t.Optional(CampaignChannel),
    template_id: t.Optional(Nullable(idRef('template'))),
    subject: t.Optional(Nullable(t.String({ maxLength: 998 }))),
    body_html: t.Optional(Nullable(Text(512 * 1024))),
    body_text: t.Optional(Nullable(Text(128 * 1024))),
    sender_id: t.Optional(Nullable(idRef('sender'))),
    variables: t.Optional(
      Nullable(
        t.Record(t.String(), t.Unknown(), {
          description: 'Extra Liquid variables beside contact and client',
        }),
      ),
    ),
  },
  strict,
)
export type SendMessageBody = Static<typeof SendMessageInput>

/** The portal's outbox viewer (portal-only: GET /messages keeps its documented query). */
export const OutboxInput = t.Object(
  {
    ...pageQueryMembers,
    client_id: t.Optional(t.String()),
    campaign_id: t.Optional(t.String()),
    status: t.Optional(MessageStatus),
    channel: t.Optional(CampaignChannel),
    to: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'Part of the recipient address' })),
  },
  strict,
)
export type OutboxQuery = Static<typeof OutboxInput>
