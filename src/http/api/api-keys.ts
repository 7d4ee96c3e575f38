import { Type as t } from '@sinclair/typebox'
import { createApiKeyVerb, listApiKeysVerb, revokeApiKeyVerb } from '../../services/api-keys/verbs'
import { DateTime, dataOf, Nullable, pageOf, Uuid } from '../../services/verbs/schemas'
import { ID_PATTERN, named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const ApiKey = named(
  'ApiKey',
  t.Object({
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
    agent: t.Boolean({ description: 'Minted by an agent registration claim (POST /agent/auth/claim)' }),
  }),
)

const tag = 'API keys'

export const apiKeyOperations = [
  route(listApiKeysVerb, {
    id: 'listApiKeys',
    method: 'GET',
    path: '/api/v1/api-keys',
    tag,
    summary: 'List API keys (never the keys themselves)',
    query: ['limit', 'cursor', 'client_id'],
    answer: 'as-is',
    response: pageOf(ApiKey),
  }),
  route(createApiKeyVerb, {
    id: 'createApiKey',
    method: 'POST',
    path: '/api/v1/api-keys',
    tag,
    summary: 'Create an API key; the key is in data.key, shown this once',
    documented: {
      client_id: Nullable(
        t.String({
          pattern: ID_PATTERN,
          description: 'The client the key is scoped to (a tenant key); null or absent: a platform-wide key',
        }),
      ),
    },
    response: dataOf(named('NewApiKey', t.Composite([ApiKey, t.Object({ key: t.String() })]))),
  }),
  route(revokeApiKeyVerb, {
    id: 'revokeApiKey',
    method: 'DELETE',
    path: '/api/v1/api-keys/{id}',
    tag,
    summary: 'Revoke an API key (takes effect immediately)',
    response: dataOf(ApiKey),
  }),
]
