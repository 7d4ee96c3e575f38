import { Type as t } from '@sinclair/typebox'
import {
  createSenderVerb,
  deleteSenderVerb,
  getSenderVerb,
  listSendersVerb,
  updateSenderVerb,
} from '../../services/senders/verbs'
import { DateTime, dataOf, pageOf, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const Sender = named(
  'Sender',
  t.Object({
    id: Uuid,
    client_id: Uuid,
    from_email: t.String({ format: 'email' }),
    from_name: t.String(),
    reply_to: t.Union([t.String(), t.Null()]),
    verified: t.Boolean({
      description: "true when the client's domain for this address passes DKIM and SPF",
    }),
    domain_id: t.Union([Uuid, t.Null()]),
    created_at: DateTime,
    updated_at: DateTime,
  }),
)

const tag = 'Senders'
const ITEM = '/api/v1/senders/{id}'

export const senderOperations = [
  route(listSendersVerb, {
    id: 'listSenders',
    method: 'GET',
    path: '/api/v1/senders',
    tag,
    summary: 'List senders',
    query: ['limit', 'cursor', 'client_id'],
    answer: 'as-is',
    response: pageOf(Sender),
  }),
  route(createSenderVerb, {
    id: 'createSender',
    method: 'POST',
    path: '/api/v1/senders',
    tag,
    summary: 'Create a sender (From identity)',
    query: ['client_id'],
    response: dataOf(Sender),
  }),
  route(getSenderVerb, {
    id: 'getSender',
    method: 'GET',
    path: ITEM,
    tag,
    summary: 'Get a sender',
    response: dataOf(Sender),
  }),
  route(updateSenderVerb, {
    id: 'updateSender',
    method: 'PATCH',
    path: ITEM,
    tag,
    summary: 'Update a sender (partial)',
    response: dataOf(Sender),
  }),
  route(deleteSenderVerb, {
    id: 'deleteSender',
    method: 'DELETE',
    path: ITEM,
    tag,
    summary: 'Delete a sender',
    response: dataOf(t.Object({ id: Uuid, client_id: Uuid, deleted: t.Boolean() })),
  }),
]
