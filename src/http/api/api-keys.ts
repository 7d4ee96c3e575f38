import { Type as t } from '@sinclair/typebox'
import { API_KEY_TIERS } from '../../lib/enums'
import { SCOPES } from '../../lib/scopes'
import { createApiKey, listApiKeys, revokeApiKey } from '../../services/api-keys/manage'
import {
  ClientPageQuery,
  DateTime,
  dataOf,
  Name,
  Nullable,
  pageOf,
  strict,
  Uuid,
} from '../../services/verbs/schemas'
import { op } from '../operation'

const Scope = t.Union(SCOPES.map((s) => t.Literal(s)))
const Tier = t.Union(API_KEY_TIERS.map((s) => t.Literal(s)))

const ApiKey = t.Object({
  id: Uuid,
  client_id: Nullable(Uuid),
  name: t.String(),
  prefix: t.String({ description: 'First 12 characters of the key, for recognising it' }),
  scopes: t.Array(t.String()),
  tier: t.String(),
  created_at: DateTime,
  last_used_at: Nullable(DateTime),
  expires_at: Nullable(DateTime),
  revoked_at: Nullable(DateTime),
})

const ApiKeyInput = t.Object(
  {
    name: Name,
    scopes: t.Array(Scope, { minItems: 1, uniqueItems: true }),
    client_id: t.Optional(Nullable(t.String())),
    tier: t.Optional(Tier),
    expires_at: t.Optional(Nullable(DateTime)),
  },
  strict,
)

const tag = 'API keys'

export const apiKeyOperations = [
  op({
    id: 'listApiKeys',
    method: 'GET',
    path: '/api/v1/api-keys',
    tag,
    auth: 'admin:*',
    summary: 'List API keys (never the keys themselves)',
    query: ClientPageQuery,
    response: pageOf(ApiKey),
    handle: (ctx, { query }) => listApiKeys(ctx, query),
  }),
  op({
    id: 'createApiKey',
    method: 'POST',
    path: '/api/v1/api-keys',
    tag,
    auth: 'admin:*',
    summary: 'Create an API key; the key is in data.key, shown this once',
    body: ApiKeyInput,
    response: dataOf(t.Composite([ApiKey, t.Object({ key: t.String() })])),
    handle: (ctx, { body }) => ({ data: createApiKey(ctx, body) }),
  }),
  op({
    id: 'revokeApiKey',
    method: 'DELETE',
    path: '/api/v1/api-keys/{id}',
    tag,
    auth: 'admin:*',
    destructive: true,
    summary: 'Revoke an API key (takes effect immediately)',
    response: dataOf(ApiKey),
    handle: (ctx, { params }) => ({ data: revokeApiKey(ctx, params.id!) }),
  }),
]
