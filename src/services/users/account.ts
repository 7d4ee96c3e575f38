import { eq } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { portalSessions, users } from '../../db/schema'
import { forbidden, invalidField, notFound } from '../../errors'
import { clientsOfUser } from './access'
import { presentUser } from './present'

// The signed-in user's own account. Only a portal user has one.

async function self(ctx: Ctx) {
  if (ctx.actor.kind !== 'user') throw forbidden('Only a portal user has an account')
  const row = (await ctx.db.select().from(users).where(eq(users.id, ctx.actor.id)).limit(1))[0]
  if (!row) throw notFound('User')
  return row
}

export async function getAccount(ctx: Ctx) {
  const row = await self(ctx)
  return presentUser(row, await clientsOfUser(ctx.db, row.id))
}

/** The current password is checked in `prepare` (slow hash); run gets the outcome and the new hash. */
export async function changePassword(ctx: Ctx, prepared: { currentOk: boolean; hash: string }) {
  const row = await self(ctx)
  if (!prepared.currentOk) throw invalidField('current_password', 'is not your current password')
  await ctx.db.update(users).set({ passwordHash: prepared.hash }).where(eq(users.id, row.id))
  // Every session of this user ends (a password change is what follows a leak); the portal
  // signs the caller in again with a fresh session.
  await ctx.db.delete(portalSessions).where(eq(portalSessions.userId, row.id))
  return presentUser(row, await clientsOfUser(ctx.db, row.id))
}

export async function updateAccount(ctx: Ctx, timezone: string) {
  const row = await self(ctx)
  const updated = (await ctx.db.update(users).set({ timezone }).where(eq(users.id, row.id)).returning())[0]!
  return presentUser(updated, await clientsOfUser(ctx.db, row.id))
}

export async function currentPasswordHash(ctx: Ctx): Promise<string> {
  return (await self(ctx)).passwordHash
}
