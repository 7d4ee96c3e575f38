import { Type as t } from '@sinclair/typebox'
import {
  createSender,
  deleteSender,
  getSender,
  listSenders,
  updateSender,
} from '../../services/senders/manage'
import {
  ClientPageQuery,
  CreateQuery,
  DateTime,
  dataOf,
  Name,
  pageOf,
  strict,
  Uuid,
} from '../../services/verbs/schemas'
import { op } from '../operation'

const Email = t.String({ format: 'email', maxLength: 254 })

const Sender = t.Object({
  id: Uuid,
  client_id: Uuid,
  from_email: t.String(),
  from_name: t.String(),
  reply_to: t.Union([t.String(), t.Null()]),
  verified: t.Boolean({ description: "true when the client's domain for this address passes DKIM and SPF" }),
  domain_id: t.Union([Uuid, t.Null()]),
  created_at: DateTime,
  updated_at: DateTime,
})

const SenderInput = t.Object(
  { from_email: Email, from_name: Name, reply_to: t.Optional(t.Union([Email, t.Null()])) },
  strict,
)
const SenderPatch = t.Partial(SenderInput, strict)

const tag = 'Senders'

export const senderOperations = [
  op({
    id: 'listSenders',
    method: 'GET',
    path: '/api/v1/senders',
    tag,
    auth: 'any',
    summary: 'List senders',
    query: ClientPageQuery,
    response: pageOf(Sender),
    handle: (ctx, { query }) => listSenders(ctx, query),
  }),
  op({
    id: 'createSender',
    method: 'POST',
    path: '/api/v1/senders',
    tag,
    auth: 'admin:*',
    summary: 'Create a sender (From identity)',
    query: CreateQuery,
    body: SenderInput,
    response: dataOf(Sender),
    handle: (ctx, { query, body }) => ({ data: createSender(ctx, query.client_id, body) }),
  }),
  op({
    id: 'getSender',
    method: 'GET',
    path: '/api/v1/senders/{id}',
    tag,
    auth: 'any',
    summary: 'Get a sender',
    response: dataOf(Sender),
    handle: (ctx, { params }) => ({ data: getSender(ctx, params.id!) }),
  }),
  op({
    id: 'updateSender',
    method: 'PATCH',
    path: '/api/v1/senders/{id}',
    tag,
    auth: 'admin:*',
    summary: 'Update a sender (partial)',
    body: SenderPatch,
    response: dataOf(Sender),
    handle: (ctx, { params, body }) => ({ data: updateSender(ctx, params.id!, body) }),
  }),
  op({
    id: 'deleteSender',
    method: 'DELETE',
    path: '/api/v1/senders/{id}',
    tag,
    auth: 'admin:*',
    destructive: true,
    summary: 'Delete a sender',
    response: dataOf(t.Object({ id: Uuid, client_id: Uuid, deleted: t.Boolean() })),
    handle: (ctx, { params }) => ({ data: deleteSender(ctx, params.id!) }),
  }),
]
