import { type Static, Type as t } from '@sinclair/typebox'
import { API_KEY_TIERS } from '../../lib/enums'
import { SCOPES } from '../../lib/scopes'
import { DateTime, Name, Nullable, pageQueryMembers, RecordId, strict } from '../verbs/schemas'

// What the API key verbs take: one schema per input, shared by REST, the portal and the CLI.

export const ScopeName = t.Union(SCOPES.map((s) => t.Literal(s)))
export const ApiKeyTierName = t.Union(API_KEY_TIERS.map((s) => t.Literal(s)))

export const ListApiKeysInput = t.Object({ ...pageQueryMembers, client_id: t.Optional(t.String()) }, strict)
export type ListApiKeysInput = Static<typeof ListApiKeysInput>

export const CreateApiKeyInput = t.Object(
  {
    name: Name,
    scopes: t.Array(ScopeName, { minItems: 1, uniqueItems: true }),
    client_id: t.Optional(Nullable(t.String())),
    tier: t.Optional(ApiKeyTierName),
    expires_at: t.Optional(Nullable(DateTime)),
  },
  strict,
)
export type CreateApiKeyInput = Static<typeof CreateApiKeyInput>

export const ApiKeyRef = t.Object({ id: RecordId }, strict)
