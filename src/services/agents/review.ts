import { and, eq, gt, inArray, lte, ne } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { paginate } from '../../db/paginate'
import { agentRegistrations } from '../../db/schema'
import { invalidField, invalidState, notFound } from '../../errors'
import { ADMIN_SCOPE } from '../../lib/scopes'
import type { ApproveRegistrationInput, ListRegistrationsInput } from './inputs'
import { presentForReview } from './present'
import { ANONYMOUS_ADMIN, existingClient } from './registrations'

// The operator's side (portal /admin/agents, owners and admins): registrations waiting for a
// decision, approved for a chosen client with trimmed scopes, or denied. Registrations belong
// to no workspace until approved, so the review is platform-wide.

const open = (ctx: Ctx) =>
  and(
    inArray(agentRegistrations.status, ['pending', 'approved']),
    gt(agentRegistrations.expiresAt, ctx.clock.now()),
  )

/** Live registrations not yet claimed or denied, newest first. */
export async function listOpenRegistrations(ctx: Ctx, page: ListRegistrationsInput) {
  return await paginate(
    ctx.db,
    ctx.secretKey,
    agentRegistrations,
    agentRegistrations.id,
    open(ctx),
    page,
    presentForReview,
  )
}

async function live(ctx: Ctx, id: string) {
  const row = (
    await ctx.db
      .select()
      .from(agentRegistrations)
      .where(and(eq(agentRegistrations.id, id), gt(agentRegistrations.expiresAt, ctx.clock.now())))
      .limit(1)
  )[0]
  if (!row) throw notFound('Registration')
  return row
}

export async function getRegistration(ctx: Ctx, id: string) {
  return presentForReview(await live(ctx, id))
}

/** Approves a pending registration for one client with a subset of the requested scopes. */
export async function approveRegistration(ctx: Ctx, input: ApproveRegistrationInput) {
  const row = await live(ctx, input.id)
  if (row.status !== 'pending')
    throw invalidState(`The registration is ${row.status}`, row.status, ['pending'])
  const clientId = await existingClient(ctx, input.client_id, 'client_id')
  // A key (or user) acting in one workspace approves only for it.
  if (ctx.actor.clientId !== null && ctx.actor.user?.clients !== null && clientId !== ctx.actor.clientId)
    throw invalidField('client_id', 'no such client')
  const extra = input.scopes.filter((s) => !row.requestedScopes.includes(s))
  if (extra.length > 0) throw invalidField('scopes', `were not requested: ${extra.join(', ')}`)
  // Registration refuses it too; this covers a registration made before that refusal existed.
  if (row.identityType === 'anonymous' && input.scopes.includes(ADMIN_SCOPE))
    throw invalidField('scopes', ANONYMOUS_ADMIN)
  const updated = (
    await ctx.db
      .update(agentRegistrations)
      .set({ status: 'approved', clientId, approvedScopes: input.scopes, updatedAt: ctx.clock.now() })
      .where(eq(agentRegistrations.id, row.id))
      .returning()
  )[0]!
  return presentForReview(updated)
}

/**
 * Registrations past their 24 h that were never claimed (pending, approved, denied) are of no
 * use to anyone: deleted. Claimed ones stay, naming the key they produced.
 */
export async function purgeExpiredRegistrations(ctx: Ctx): Promise<number> {
  return (
    await ctx.db
      .delete(agentRegistrations)
      .where(
        and(lte(agentRegistrations.expiresAt, ctx.clock.now()), ne(agentRegistrations.status, 'claimed')),
      )
      .returning({ id: agentRegistrations.id })
  ).length
}

/** Denies a registration not yet claimed; its claim then answers 409 with status denied. */
export async function denyRegistration(ctx: Ctx, id: string) {
  const row = await live(ctx, id)
  if (row.status !== 'pending' && row.status !== 'approved')
    throw invalidState(`The registration is ${row.status}`, row.status, ['pending', 'approved'])
  const updated = (
    await ctx.db
      .update(agentRegistrations)
      .set({ status: 'denied', updatedAt: ctx.clock.now() })
      .where(eq(agentRegistrations.id, row.id))
      .returning()
  )[0]!
  return presentForReview(updated)
}
