import { type Static, Type as t } from '@sinclair/typebox'
import { OAUTH_SCOPES } from '../../lib/scopes'
import { Name, Nullable, pageQueryMembers, RecordId, strict } from '../verbs/schemas'

// What the OAuth client verbs take (operators' /api/v1/oauth-clients).

export const OAuthScopeName = t.Union(OAUTH_SCOPES.map((s) => t.Literal(s)))

export const ListOAuthClientsInput = t.Object(
  { ...pageQueryMembers, client_id: t.Optional(t.String()) },
  strict,
)
export type ListOAuthClientsInput = Static<typeof ListOAuthClientsInput>

export const CreateOAuthClientInput = t.Object(
  {
    name: Name,
    redirect_uris: t.Array(t.String({ maxLength: 2000 }), { maxItems: 20, uniqueItems: true }),
    confidential: t.Boolean(),
    scopes: t.Array(OAuthScopeName, { minItems: 1, uniqueItems: true }),
    client_id: t.Optional(Nullable(t.String())),
  },
  strict,
)
export type CreateOAuthClientInput = Static<typeof CreateOAuthClientInput>

export const OAuthClientRef = t.Object({ id: RecordId }, strict)
