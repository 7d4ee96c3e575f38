import { and, count, eq, inArray, ne } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { paginate } from '../../db/paginate'
import { clients, portalSessions, type UserRow, userClients, users } from '../../db/schema'
import { conflict, forbidden, invalidField, notFound, ServiceError } from '../../errors'
import { newId, notAnIdMessage, parseId } from '../../lib/ids'
import { clientsOfUser } from './access'
import type { CreateUserInput, ListUsersInput, UpdateUserInput } from './inputs'
import { presentUser } from './present'

// Managing portal users is the owner's alone among portal roles. API keys and
// the console (herald users …) are platform operators and may too.

export function requireOwner(ctx: Ctx): void {
  const user = ctx.actor.user
  if (user && user.role !== 'owner') throw forbidden('Only an owner can manage users', { role: user.role })
}

const normalizeEmail = (email: string) => email.trim().toLowerCase()

async function findUser(ctx: Ctx, id: string): Promise<UserRow> {
  const row = (await ctx.db.select().from(users).where(eq(users.id, id)).limit(1))[0]
  if (!row) throw notFound('User')
  return row
}

/** Client ids (UUID or prefixed) that must all exist; 422 names the member otherwise. */
async function resolveClients(ctx: Ctx, given: readonly string[] | undefined): Promise<string[]> {
  if (!given) return []
  const ids = given.map((g) => parseId(g))
  const bad = ids.indexOf(null)
  if (bad !== -1) throw invalidField(`clients[${bad}]`, notAnIdMessage('client'))
  const unique = [...new Set(ids as string[])]
  if (unique.length === 0) return []
  const found = await ctx.db.select({ id: clients.id }).from(clients).where(inArray(clients.id, unique))
  if (found.length !== unique.length) throw invalidField('clients', 'names a client that does not exist')
  return unique
}

async function setClients(ctx: Ctx, userId: string, ids: readonly string[]): Promise<void> {
  await ctx.db.delete(userClients).where(eq(userClients.userId, userId))
  if (ids.length) await ctx.db.insert(userClients).values(ids.map((clientId) => ({ userId, clientId })))
}

async function ownersOtherThan(ctx: Ctx, id: string): Promise<number> {
  return (
    (
      await ctx.db
        .select({ n: count() })
        .from(users)
        .where(and(eq(users.role, 'owner'), ne(users.id, id)))
        .limit(1)
    )[0]?.n ?? 0
  )
}

const lastOwner = () =>
  new ServiceError('INVALID_STATE', 'Herald needs at least one owner', {
    status: 'last_owner',
    allowed_from: [],
  })

export async function createUser(ctx: Ctx, input: CreateUserInput, passwordHash: string) {
  requireOwner(ctx)
  const email = normalizeEmail(input.email)
  const existing = (
    await ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1)
  )[0]
  if (existing) throw conflict('A user with this email exists', existing.id)
  const clientIds = input.role === 'member' ? await resolveClients(ctx, input.clients) : []
  const row = (
    await ctx.db
      .insert(users)
      .values({
        id: newId(),
        email,
        passwordHash,
        role: input.role,
        timezone: input.timezone ?? 'UTC',
        createdAt: ctx.clock.now(),
      })
      .returning()
  )[0]!
  await setClients(ctx, row.id, clientIds)
  return presentUser(row, clientIds)
}

export async function listUsers(ctx: Ctx, page: ListUsersInput) {
  requireOwnerOrAdmin(ctx)
  return await paginate(ctx.db, ctx.secretKey, users, users.id, undefined, page, async (row) =>
    presentUser(row, row.role === 'member' ? await clientsOfUser(ctx.db, row.id) : []),
  )
}

/** Admins may see who else has access; only owners change it. */
function requireOwnerOrAdmin(ctx: Ctx): void {
  const user = ctx.actor.user
  if (user && user.role !== 'owner' && user.role !== 'admin')
    throw forbidden('Only owners and admins can list users', { role: user.role })
}

export async function getUser(ctx: Ctx, id: string) {
  requireOwnerOrAdmin(ctx)
  const row = await findUser(ctx, id)
  return presentUser(row, await clientsOfUser(ctx.db, id))
}

export async function updateUser(ctx: Ctx, input: UpdateUserInput) {
  requireOwner(ctx)
  const row = await findUser(ctx, input.id)
  const role = input.role ?? row.role
  if (row.role === 'owner' && role !== 'owner' && (await ownersOtherThan(ctx, row.id)) === 0)
    throw lastOwner()
  const updated =
    role === row.role
      ? row
      : (await ctx.db.update(users).set({ role }).where(eq(users.id, row.id)).returning())[0]!
  if (role !== 'member') await setClients(ctx, row.id, [])
  else if (input.clients !== undefined)
    await setClients(ctx, row.id, await resolveClients(ctx, input.clients))
  return presentUser(updated, await clientsOfUser(ctx.db, row.id))
}

/** A new password ends every session of the user (a reset is what follows a leak). */
export async function resetPassword(ctx: Ctx, id: string, passwordHash: string) {
  requireOwner(ctx)
  const row = await findUser(ctx, id)
  await ctx.db.update(users).set({ passwordHash }).where(eq(users.id, id))
  await ctx.db.delete(portalSessions).where(eq(portalSessions.userId, id))
  return presentUser(row, await clientsOfUser(ctx.db, id))
}

export async function deleteUser(ctx: Ctx, id: string) {
  requireOwner(ctx)
  const row = await findUser(ctx, id)
  if (ctx.actor.kind === 'user' && ctx.actor.id === id) throw forbidden('You cannot delete yourself')
  if (row.role === 'owner' && (await ownersOtherThan(ctx, id)) === 0) throw lastOwner()
  const view = presentUser(row, await clientsOfUser(ctx.db, id))
  await ctx.db.delete(users).where(eq(users.id, id))
  return { ...view, deleted: true as const }
}
