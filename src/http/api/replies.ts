import { Type as t } from '@sinclair/typebox'
import { getReplyVerb, listRepliesVerb } from '../../services/replies/verbs'
import { DateTime, dataOf, Nullable, pageOf, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const Reply = named(
  'Reply',
  t.Object({
    id: Uuid,
    client_id: Uuid,
    message_id: Nullable(Uuid),
    campaign_id: Nullable(Uuid),
    journey_id: Nullable(Uuid),
    sequence_id: Nullable(Uuid),
    contact_id: Nullable(Uuid),
    from: t.String({ description: 'Sender address of the reply' }),
    subject: Nullable(t.String()),
    snippet: t.String({
      description: 'The first lines of what the reply newly says (quoted history cut off)',
    }),
    body_text: Nullable(t.String()),
    received_at: DateTime,
  }),
)

const tag = 'Replies'

export const replyOperations = [
  route(listRepliesVerb, {
    id: 'listReplies',
    method: 'GET',
    path: '/api/v1/replies',
    tag,
    summary: 'List replies to sent messages (filters: campaign_id, journey_id, sequence_id, contact_id)',
    query: ['limit', 'cursor', 'client_id', 'campaign_id', 'journey_id', 'sequence_id', 'contact_id'],
    answer: 'as-is',
    response: pageOf(Reply),
  }),
  route(getReplyVerb, {
    id: 'getReply',
    method: 'GET',
    path: '/api/v1/replies/{id}',
    tag,
    summary: 'Get a reply with its text',
    response: dataOf(Reply),
  }),
]
