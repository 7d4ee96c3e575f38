import { Type as t } from '@sinclair/typebox'
import { createClient } from '../../services/clients/create'
import { getClient, listClients } from '../../services/clients/read'
import { updateClient } from '../../services/clients/update'
import { DateTime, dataOf, Name, PageQuery, pageOf, strict, Uuid } from '../../services/verbs/schemas'
import { op } from '../operation'

const Client = t.Object({
  id: Uuid,
  client_id: Uuid,
  name: t.String(),
  industry: t.Union([t.String(), t.Null()]),
  status: t.Union([t.Literal('active'), t.Literal('suspended')]),
  created_at: DateTime,
  updated_at: DateTime,
})

const ClientInput = t.Object({ name: Name, industry: t.Optional(t.String({ maxLength: 200 })) }, strict)
const ClientPatch = t.Object(
  {
    name: t.Optional(Name),
    industry: t.Optional(t.Union([t.String({ maxLength: 200 }), t.Null()])),
    status: t.Optional(t.Union([t.Literal('active'), t.Literal('suspended')])),
  },
  strict,
)

const tag = 'Clients'

export const clientOperations = [
  op({
    id: 'listClients',
    method: 'GET',
    path: '/api/v1/clients',
    tag,
    auth: 'any',
    summary: 'List clients (a tenant key sees its own)',
    query: PageQuery,
    response: pageOf(Client),
    handle: (ctx, { query }) => listClients(ctx, query),
  }),
  op({
    id: 'createClient',
    method: 'POST',
    path: '/api/v1/clients',
    tag,
    auth: 'any',
    summary: 'Create a client (platform-wide key)',
    body: ClientInput,
    response: dataOf(Client),
    handle: (ctx, { body }) => ({ data: createClient(ctx, body) }),
  }),
  op({
    id: 'getClient',
    method: 'GET',
    path: '/api/v1/clients/{id}',
    tag,
    auth: 'any',
    summary: 'Get a client',
    response: dataOf(Client),
    handle: (ctx, { params }) => ({ data: getClient(ctx, params.id!) }),
  }),
  op({
    id: 'updateClient',
    method: 'PATCH',
    path: '/api/v1/clients/{id}',
    tag,
    auth: 'any',
    summary: 'Update a client: name, industry, status (platform-wide key)',
    body: ClientPatch,
    response: dataOf(Client),
    handle: (ctx, { params, body }) => ({ data: updateClient(ctx, params.id!, body) }),
  }),
]
