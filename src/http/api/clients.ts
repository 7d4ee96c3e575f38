import { Type as t } from '@sinclair/typebox'
import { ClientStatus } from '../../services/clients/inputs'
import {
  createClientVerb,
  getClientVerb,
  listClientsVerb,
  updateClientVerb,
} from '../../services/clients/verbs'
import { DateTime, dataOf, pageOf, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const Client = named(
  'Client',
  t.Object({
    id: Uuid,
    client_id: Uuid,
    name: t.String(),
    industry: t.Union([t.String(), t.Null()]),
    status: ClientStatus,
    /** Extension: IANA time zone for contacts without their own (null: UTC). */
    timezone: t.Union([t.String(), t.Null()]),
    created_at: DateTime,
    updated_at: DateTime,
  }),
)

const tag = 'Clients'
const ITEM = '/api/v1/clients/{id}'

export const clientOperations = [
  route(listClientsVerb, {
    id: 'listClients',
    method: 'GET',
    path: '/api/v1/clients',
    tag,
    summary: 'List clients (a tenant key sees its own)',
    query: ['limit', 'cursor'],
    answer: 'as-is',
    response: pageOf(Client),
  }),
  route(createClientVerb, {
    id: 'createClient',
    method: 'POST',
    path: '/api/v1/clients',
    tag,
    summary: 'Create a client (platform-wide key)',
    response: dataOf(Client),
  }),
  route(getClientVerb, {
    id: 'getClient',
    method: 'GET',
    path: ITEM,
    tag,
    summary: 'Get a client',
    response: dataOf(Client),
  }),
  route(updateClientVerb, {
    id: 'updateClient',
    method: 'PATCH',
    path: ITEM,
    tag,
    summary: 'Update a client: name, industry, status, timezone (admin)',
    response: dataOf(Client),
  }),
]
