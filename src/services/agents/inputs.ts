import { type Static, Type as t } from '@sinclair/typebox'
import { AGENT_IDENTITY_TYPES } from '../../lib/enums'
import { ScopeName } from '../api-keys/inputs'
import { Name, Nullable, pageQueryMembers, RecordId, strict } from '../verbs/schemas'

// What the agent registration verbs take: the three public doors of the spec's
// "Programmatic registration, claim and revocation", and the portal's review of pending ones.

export const IdentityType = t.Union(AGENT_IDENTITY_TYPES.map((s) => t.Literal(s)))
const Scopes = t.Array(ScopeName, { minItems: 1, uniqueItems: true })

export const RegisterAgentInput = t.Object(
  {
    client_name: Name,
    identity_type: IdentityType,
    scopes: Scopes,
    client_id: t.Optional(Nullable(t.String({ maxLength: 64 }))),
  },
  strict,
)
export type RegisterAgentInput = Static<typeof RegisterAgentInput>

export const ClaimAgentInput = t.Object(
  {
    registration_id: t.String({
      minLength: 1,
      maxLength: 100,
      description: 'The reg_… handle register returned',
    }),
    identity_assertion: t.Optional(
      t.String({ minLength: 1, maxLength: 16_384, description: 'An ID-JAG (typ oauth-id-jag+jwt)' }),
    ),
  },
  strict,
)
export type ClaimAgentInput = Static<typeof ClaimAgentInput>

export const RevokeAgentInput = t.Object(
  { credential: t.String({ minLength: 1, maxLength: 512, description: 'The key to revoke' }) },
  strict,
)
export type RevokeAgentInput = Static<typeof RevokeAgentInput>

export const ListRegistrationsInput = t.Object(pageQueryMembers, strict)
export type ListRegistrationsInput = Static<typeof ListRegistrationsInput>

export const ApproveRegistrationInput = t.Object(
  { id: RecordId, client_id: t.String({ minLength: 1, maxLength: 64 }), scopes: Scopes },
  strict,
)
export type ApproveRegistrationInput = Static<typeof ApproveRegistrationInput>

export const RegistrationRef = t.Object({ id: RecordId }, strict)
