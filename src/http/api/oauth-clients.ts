import { Type as t } from '@sinclair/typebox'
import {
  createOAuthClientVerb,
  deleteOAuthClientVerb,
  listOAuthClientsVerb,
} from '../../services/oauth/verbs'
import { DateTime, dataOf, Nullable, pageOf, Uuid } from '../../services/verbs/schemas'
import { ID_PATTERN, named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

// Operators' registration of OAuth clients (admin:*). `client_id` is the workspace,
// as everywhere in the API; the OAuth client's own id is `oauth_client_id`.

const OAuthClient = named(
  'OAuthClient',
  t.Object({
    id: Uuid,
    oauth_client_id: t.String({
      description: 'The OAuth client_id to use at /oauth2/authorize and /oauth2/token',
    }),
    name: t.String(),
    client_id: Nullable(Uuid),
    redirect_uris: t.Array(t.String()),
    confidential: t.Boolean(),
    scopes: t.Array(t.String()),
    source: t.String({ description: 'operator (this API or the portal) or dynamic (RFC 7591 registration)' }),
    created_at: DateTime,
    deleted_at: Nullable(DateTime),
  }),
)

const tag = 'OAuth clients'

export const oauthClientOperations = [
  route(listOAuthClientsVerb, {
    id: 'listOAuthClients',
    method: 'GET',
    path: '/api/v1/oauth-clients',
    tag,
    summary: 'List registered OAuth clients (never their secrets)',
    query: ['limit', 'cursor', 'client_id'],
    answer: 'as-is',
    response: pageOf(OAuthClient),
  }),
  route(createOAuthClientVerb, {
    id: 'createOAuthClient',
    method: 'POST',
    path: '/api/v1/oauth-clients',
    tag,
    summary: 'Register an OAuth client; a confidential one gets data.client_secret, shown this once',
    documented: {
      client_id: Nullable(
        t.String({
          pattern: ID_PATTERN,
          description:
            'The workspace its client-credentials tokens are for; null or absent: the default workspace',
        }),
      ),
    },
    response: dataOf(
      named(
        'NewOAuthClient',
        t.Composite([OAuthClient, t.Object({ client_secret: t.Optional(t.String()) })]),
      ),
    ),
  }),
  route(deleteOAuthClientVerb, {
    id: 'deleteOAuthClient',
    method: 'DELETE',
    path: '/api/v1/oauth-clients/{id}',
    tag,
    summary: 'Delete an OAuth client; every token it holds stops working at once',
    response: dataOf(OAuthClient),
  }),
]
