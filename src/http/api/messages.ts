import { Type as t } from '@sinclair/typebox'
import { MESSAGE_STATUSES } from '../../lib/enums'
import { getMessage, listMessages } from '../../services/messages/read'
import {
  DateTime,
  dataOf,
  Nullable,
  pageOf,
  pageQueryMembers,
  strict,
  Uuid,
} from '../../services/verbs/schemas'
import { op } from '../operation'

const Status = t.Union(MESSAGE_STATUSES.map((s) => t.Literal(s)))

const messageMembers = {
  id: Uuid,
  client_id: Uuid,
  campaign_id: Nullable(Uuid),
  journey_id: Nullable(Uuid),
  sequence_id: Nullable(Uuid),
  contact_id: Uuid,
  channel: t.String(),
  to: t.String(),
  status: Status,
  skip_reason: Nullable(t.String()),
  provider: Nullable(t.String()),
  provider_message_id: Nullable(t.String()),
  message_id: Nullable(t.String({ description: 'The RFC 5322 Message-ID, the same on every attempt' })),
  error: Nullable(t.String()),
  attempts: t.Integer(),
  created_at: DateTime,
  sent_at: Nullable(DateTime),
  delivered_at: Nullable(DateTime),
  opened_at: Nullable(DateTime),
  clicked_at: Nullable(DateTime),
}
const Message = t.Object(messageMembers)
const MessageDetail = t.Object({
  ...messageMembers,
  subject: Nullable(t.String()),
  body_html: Nullable(t.String({ description: 'Kept for the capture and simulator providers' })),
  body_text: Nullable(t.String()),
  headers: t.Record(t.String(), t.String(), { description: 'Lower-case header names' }),
})

const ListQuery = t.Object(
  {
    ...pageQueryMembers,
    client_id: t.Optional(t.String()),
    campaign_id: t.Optional(t.String()),
    contact_id: t.Optional(t.String()),
    status: t.Optional(Status),
  },
  strict,
)

const tag = 'Messages'

export const messageOperations = [
  op({
    id: 'listMessages',
    method: 'GET',
    path: '/api/v1/messages',
    tag,
    auth: 'any',
    summary: 'List outbox messages (filters: campaign_id, contact_id, status)',
    query: ListQuery,
    response: pageOf(Message),
    handle: (ctx, { query }) => listMessages(ctx, query),
  }),
  op({
    id: 'getMessage',
    method: 'GET',
    path: '/api/v1/messages/{id}',
    tag,
    auth: 'any',
    summary: 'Get a message with what was sent (subject, bodies, headers)',
    response: dataOf(MessageDetail),
    handle: (ctx, { params }) => ({ data: getMessage(ctx, params.id!) }),
  }),
]
