import { Type as t } from '@sinclair/typebox'
import { MessageStatus } from '../../services/messages/inputs'
import { getMessageVerb, listMessagesVerb, sendMessageVerb } from '../../services/messages/verbs'
import { DateTime, dataOf, Nullable, pageOf, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const messageMembers = {
  id: Uuid,
  client_id: Uuid,
  campaign_id: Nullable(Uuid),
  journey_id: Nullable(Uuid),
  sequence_id: Nullable(Uuid),
  contact_id: Uuid,
  channel: t.String(),
  to: t.String(),
  status: named('MessageStatus', MessageStatus),
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
  opens_count: t.Integer({
    description: 'Every fetch of the open pixel (repeats and privacy proxies included)',
  }),
  clicks_count: t.Integer({ description: 'Every tracked click, repeats included' }),
}
const Message = named('Message', t.Object(messageMembers))
const MessageDetail = named(
  'MessageDetail',
  t.Object({
    ...messageMembers,
    subject: Nullable(t.String()),
    body_html: Nullable(t.String({ description: 'Kept for the capture and simulator providers' })),
    body_text: Nullable(t.String()),
    headers: t.Record(t.String(), t.String(), { description: 'Lower-case header names' }),
  }),
)

const tag = 'Messages'

export const messageOperations = [
  route(listMessagesVerb, {
    id: 'listMessages',
    method: 'GET',
    path: '/api/v1/messages',
    tag,
    summary: 'List outbox messages (filters: campaign_id, journey_id, sequence_id, contact_id, status)',
    query: [
      'limit',
      'cursor',
      'client_id',
      'campaign_id',
      'journey_id',
      'sequence_id',
      'contact_id',
      'status',
    ],
    answer: 'as-is',
    response: pageOf(Message),
  }),
  route(sendMessageVerb, {
    id: 'sendMessage',
    method: 'POST',
    path: '/api/v1/messages',
    tag,
    summary: 'Send one message outside any campaign (a transactional or test send)',
    description:
      'To one contact of the client: a template_id, or inline subject/body_html/body_text (Liquid, with contact, client and the given variables). Queued in the same outbox as campaigns (retries, limits, suppression checks) and sent at once; campaign_id is null. Email needs a verified sender unless the provider is capture.',
    query: ['client_id'],
    response: dataOf(MessageDetail),
  }),
  route(getMessageVerb, {
    id: 'getMessage',
    method: 'GET',
    path: '/api/v1/messages/{id}',
    tag,
    summary: 'Get a message with what was sent (subject, bodies, headers)',
    response: dataOf(MessageDetail),
  }),
]
