import { Type as t } from '@sinclair/typebox'
import { AGENT_IDENTITY_TYPES, AGENT_REGISTRATION_STATUSES } from '../../lib/enums'
import { claimAgentVerb, registerAgentVerb, revokeAgentVerb } from '../../services/agents/verbs'
import { DateTime, dataOf, Nullable, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

// The spec's "Programmatic registration, claim and revocation": no credential, each
// with its own 20/min per-IP bucket. Not MCP tools (an MCP caller already holds a credential).

const tag = 'Agent registration'
const literals = (values: readonly string[]) => t.Union(values.map((v) => t.Literal(v)))

const AgentRegistration = named(
  'AgentRegistration',
  t.Object({
    registration_id: t.String({ description: 'The handle to claim with (reg_…); shown only here' }),
    status: literals(AGENT_REGISTRATION_STATUSES),
    client_name: t.String(),
    identity_type: literals(AGENT_IDENTITY_TYPES),
    scopes: t.Array(t.String(), { description: 'Approved scopes once approved, else the requested ones' }),
    requested_scopes: t.Array(t.String()),
    client_id: Nullable(Uuid),
    expires_at: DateTime,
  }),
)

const AgentCredential = named(
  'AgentCredential',
  t.Object({
    credential: t.String({ description: 'The API key (hrld_…); shown only once' }),
    key_id: Uuid,
    scopes: t.Array(t.String()),
    client_id: Nullable(Uuid),
    identity_type: literals(AGENT_IDENTITY_TYPES),
    expires_at: Nullable(DateTime),
  }),
)

export const agentOperations = [
  route(registerAgentVerb, {
    id: 'registerAgent',
    method: 'POST',
    path: '/agent/auth/register',
    tag,
    summary:
      'Register an agent (no credential); an operator approves it unless it proves its identity at claim',
    perIpLimit: true,
    response: dataOf(AgentRegistration),
  }),
  route(claimAgentVerb, {
    id: 'claimAgent',
    method: 'POST',
    path: '/agent/auth/claim',
    tag,
    summary: 'Exchange an approved registration handle for an API key, exactly once',
    perIpLimit: true,
    response: dataOf(AgentCredential),
  }),
  route(revokeAgentVerb, {
    id: 'revokeAgentCredential',
    method: 'POST',
    path: '/agent/auth/revoke',
    tag,
    summary: 'Revoke a key by presenting it (unknown keys answer the same)',
    perIpLimit: true,
    response: dataOf(t.Object({ revoked: t.Literal(true) })),
  }),
]
