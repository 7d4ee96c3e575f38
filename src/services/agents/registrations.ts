import { and, asc, eq, gt, isNull } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { type AgentRegistrationRow, agentRegistrations, apiKeys, clients } from '../../db/schema'
import { forbidden, invalidField, invalidState, notFound, ServiceError } from '../../errors'
import { randomBase62, sha256Hex } from '../../lib/crypto'
import { newId, notAnIdMessage, parseId } from '../../lib/ids'
import { ADMIN_SCOPE } from '../../lib/scopes'
import { DAY_MS } from '../../lib/time'
import { credentialsChanged } from '../api-keys/authenticate'
import { issueApiKey } from '../api-keys/issue'
import type { IdJag } from './id-jag'
import { spendIdJag } from './id-jag-replay'
import type { ClaimAgentInput, RegisterAgentInput, RevokeAgentInput } from './inputs'
import { presentRegistration } from './present'

// The agent's side of registration: register → (approval) → claim, once, for an
// ordinary API key (tier standard, agent: true); revoke by presenting the key. No credential:
// the handle is the authority for claim, the key itself for revoke.

export const HANDLE_PREFIX = 'reg_'
const HANDLE_TTL_MS = DAY_MS
export const ANONYMOUS_ADMIN = `${ADMIN_SCOPE} cannot be granted to an anonymous agent`

/** The workspace created at first start (§2): the oldest client, as UUIDv7 ids sort by time. */
export async function defaultWorkspace(ctx: Ctx): Promise<string> {
  const row = (await ctx.db.select({ id: clients.id }).from(clients).orderBy(asc(clients.id)).limit(1))[0]
  if (!row) throw new ServiceError('INTERNAL_ERROR', 'No client exists to approve agents for')
  return row.id
}

/** An existing client's id (UUID or cli_ form), else a 422 on `field`: not an id, or no such client. */
export async function existingClient(ctx: Ctx, given: string, field: string): Promise<string> {
  const id = parseId(given)
  // Named like every other client_id that is no id (notAnIdMessage), not as a missing client.
  if (!id) throw invalidField(field, notAnIdMessage('client'))
  if (!(await ctx.db.select({ id: clients.id }).from(clients).where(eq(clients.id, id)).limit(1))[0])
    throw invalidField(field, 'no such client')
  return id
}

export async function registerAgent(ctx: Ctx, input: RegisterAgentInput) {
  const now = ctx.clock.now()
  // Nobody vouches for an anonymous agent: it may never hold the operator's own power.
  if (input.identity_type === 'anonymous' && input.scopes.includes(ADMIN_SCOPE))
    throw invalidField('scopes', ANONYMOUS_ADMIN)
  const requested = input.client_id != null ? await existingClient(ctx, input.client_id, 'client_id') : null
  let status: AgentRegistrationRow['status'] = 'pending'
  let approvedScopes: string[] | null = null
  let clientId = requested
  // Evaluation mode: anonymous agents get the allowed read scopes in the default workspace at once.
  if (input.identity_type === 'anonymous' && ctx.config.agentAutoApprove) {
    approvedScopes = input.scopes.filter((s) => ctx.config.agentAnonymousScopes.includes(s))
    if (approvedScopes.length === 0)
      throw invalidField(
        'scopes',
        `none is allowed for anonymous agents (${ctx.config.agentAnonymousScopes.join(', ')})`,
      )
    status = 'approved'
    clientId = await defaultWorkspace(ctx)
  }
  const handle = `${HANDLE_PREFIX}${randomBase62(32)}`
  const row = (
    await ctx.db
      .insert(agentRegistrations)
      .values({
        id: newId(),
        handleHash: sha256Hex(handle),
        status,
        clientName: input.client_name,
        identityType: input.identity_type,
        requestedScopes: input.scopes,
        approvedScopes,
        clientId,
        createdAt: now,
        updatedAt: now,
        expiresAt: now + HANDLE_TTL_MS,
      })
      .returning()
  )[0]!
  return presentRegistration(row, handle)
}

/** The live registration a handle names; an unknown or expired handle is 404, as if absent. */
export async function registrationByHandle(ctx: Ctx, handle: string): Promise<AgentRegistrationRow> {
  const row = handle.startsWith(HANDLE_PREFIX)
    ? (
        await ctx.db
          .select()
          .from(agentRegistrations)
          .where(
            and(
              eq(agentRegistrations.handleHash, sha256Hex(handle)),
              gt(agentRegistrations.expiresAt, ctx.clock.now()),
            ),
          )
          .limit(1)
      )[0]
    : undefined
  if (!row) throw notFound('Registration')
  return row
}

/**
 * An identity_assertion registration approved by its verified ID-JAG. The workspace is the
 * assertion's `aud_tenant` claim (a Herald client id), else the default workspace; a workspace
 * named at registration must agree. Scopes: the requested ones the issuer granted (`scope`
 * claim; absent = every scope but admin:*, which only an explicit grant gives).
 */
async function approveByAssertion(
  ctx: Ctx,
  row: AgentRegistrationRow,
  jag: IdJag,
): Promise<AgentRegistrationRow> {
  let clientId: string
  if (jag.audTenant !== null) {
    const id = parseId(jag.audTenant)
    if (!id || !(await ctx.db.select({ id: clients.id }).from(clients).where(eq(clients.id, id)).limit(1))[0])
      throw forbidden("The assertion's aud_tenant names no client of this server")
    clientId = id
  } else clientId = await defaultWorkspace(ctx)
  if (row.clientId !== null && row.clientId !== clientId)
    throw forbidden('The assertion does not grant the workspace this registration asked for', {
      client_id: row.clientId,
    })
  const granted = jag.scopes
  const scopes = row.requestedScopes.filter((s) => (granted ? granted.includes(s) : s !== ADMIN_SCOPE))
  if (scopes.length === 0) throw forbidden('The assertion grants none of the requested scopes')
  return (
    await ctx.db
      .update(agentRegistrations)
      .set({
        status: 'approved',
        clientId,
        approvedScopes: scopes,
        subject: `${jag.issuer} ${jag.subject}`,
        updatedAt: ctx.clock.now(),
      })
      .where(eq(agentRegistrations.id, row.id))
      .returning()
  )[0]!
}

/** Exchanges an approved registration for its key, exactly once. `jag`: the verified assertion, if any. */
export async function claimAgent(ctx: Ctx, input: ClaimAgentInput, jag: IdJag | null) {
  let row = await registrationByHandle(ctx, input.registration_id)
  if (row.status === 'pending' && row.identityType === 'identity_assertion' && jag) {
    // Spent in this (the verb's) transaction: a claim refused below rolls it back, a claim that
    // mints the key commits it. Refused like any other bad assertion (401, details.reason).
    if (!(await spendIdJag(ctx.db, jag, ctx.clock.now())))
      throw new ServiceError('UNAUTHORIZED', 'The assertion has already been used; present a new one', {
        reason: 'replayed',
      })
    row = await approveByAssertion(ctx, row, jag)
  }
  if (row.status !== 'approved')
    throw invalidState(`The registration is ${row.status}; only an approved one can be claimed`, row.status, [
      'approved',
    ])
  const { row: key, key: credential } = await issueApiKey(ctx.db, ctx.clock.now(), {
    name: row.clientName,
    scopes: row.approvedScopes!,
    clientId: row.clientId,
    tier: 'standard',
    agent: true,
  })
  // Conditional on the status, so two claims racing in different processes mint one key.
  const claimed = (
    await ctx.db
      .update(agentRegistrations)
      .set({ status: 'claimed', keyId: key.id, updatedAt: ctx.clock.now() })
      .where(and(eq(agentRegistrations.id, row.id), eq(agentRegistrations.status, 'approved')))
      .returning()
  )[0]!
  if (!claimed) throw invalidState('The registration was claimed already', 'claimed', ['approved'])
  await credentialsChanged(ctx)
  return {
    credential,
    key_id: key.id,
    scopes: key.scopes,
    client_id: key.clientId,
    identity_type: row.identityType,
    expires_at: null as string | null,
  }
}

/**
 * Presenting a key is the authority to revoke it (like RFC 7009): unknown, already revoked and
 * valid keys all answer the same, so the endpoint tells nothing about what exists.
 */
export async function revokeAgentCredential(ctx: Ctx, input: RevokeAgentInput) {
  const revoked = (
    await ctx.db
      .update(apiKeys)
      .set({ revokedAt: ctx.clock.now() })
      .where(and(eq(apiKeys.keyHash, sha256Hex(input.credential)), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id })
  )[0]!
  if (revoked) await credentialsChanged(ctx)
  return { revoked: true as const }
}
