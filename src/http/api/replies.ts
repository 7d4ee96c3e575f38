import { Type as t } from '@sinclair/typebox'
import { getReply, listReplies } from '../../services/replies/read'
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

const Reply = t.Object({
  id: Uuid,
  client_id: Uuid,
  message_id: Nullable(Uuid),
  campaign_id: Nullable(Uuid),
  journey_id: Nullable(Uuid),
  sequence_id: Nullable(Uuid),
  contact_id: Nullable(Uuid),
  from: t.String({ description: 'Sender address of the reply' }),
  subject: Nullable(t.String()),
  snippet: t.String({ description: 'The first lines of what the reply newly says (quoted history cut off)' }),
  body_text: Nullable(t.String()),
  received_at: DateTime,
})

const ListQuery = t.Object(
  {
    ...pageQueryMembers,
    client_id: t.Optional(t.String()),
    campaign_id: t.Optional(t.String()),
    contact_id: t.Optional(t.String()),
  },
  strict,
)

const tag = 'Replies'

export const replyOperations = [
  op({
    id: 'listReplies',
    method: 'GET',
    path: '/api/v1/replies',
    tag,
    auth: 'replies:read',
    summary: 'List replies to sent messages (filters: campaign_id, contact_id)',
    query: ListQuery,
    response: pageOf(Reply),
    handle: (ctx, { query }) => listReplies(ctx, query),
  }),
  op({
    id: 'getReply',
    method: 'GET',
    path: '/api/v1/replies/{id}',
    tag,
    auth: 'replies:read',
    summary: 'Get a reply with its text',
    response: dataOf(Reply),
    handle: (ctx, { params }) => ({ data: getReply(ctx, params.id!) }),
  }),
]
