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

function findUser(ctx: Ctx, id: string): UserRow {
  const row = ctx.db.select().from(users).where(eq(users.id, id)).get()
  if (!row) throw notFound('User')
  return row
}

/** Client ids (UUID or prefixed) that must all exist; 422 names the member otherwise. */
function resolveClients(ctx: Ctx, given: readonly string[] | undefined): string[] {
  if (!given) return []
  const ids = given.map((g) => parseId(g))
  const bad = ids.indexOf(null)
  if (bad !== -1) throw invalidField(`clients[${bad}]`, notAnIdMessage('client'))
  const unique = [...new Set(ids as string[])]
  if (unique.length === 0) return []
  const found = ctx.db.select({ id: clients.id }).from(clients).where(inArray(clients.id, unique)).all()
  if (found.length !== unique.length) throw invalidField('clients', 'names a client that does not exist')
  return unique
}

function setClients(ctx: Ctx, userId: string, ids: readonly string[]): void {
  ctx.db.delete(userClients).where(eq(userClients.userId, userId)).run()
  if (ids.length)
    ctx.db
      .insert(userClients)
      .values(ids.map((clientId) => ({ userId, clientId })))
      .run()
}

function ownersOtherThan(ctx: Ctx, id: string): number {
  return (
    ctx.db
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.role, 'owner'), ne(users.id, id)))
      .get()?.n ?? 0
  )
}

const lastOwner = () =>
  new ServiceError('INVALID_STATE', 'Herald needs at least one owner', {
    status: 'last_owner',
    allowed_from: [],
  })

export function createUser(ctx: Ctx, input: CreateUserInput, passwordHash: string) {
  requireOwner(ctx)
  const email = normalizeEmail(input.email)
  const existing = ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email)).get()
  if (existing) throw conflict('A user with this email exists', existing.id)
  const clientIds = input.role === 'member' ? resolveClients(ctx, input.clients) : []
  const row = ctx.db
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
    .get()
  setClients(ctx, row.id, clientIds)
  return presentUser(row, clientIds)
}

export function listUsers(ctx: Ctx, page: ListUsersInput) {
  requireOwnerOrAdmin(ctx)
  return paginate(ctx.db, ctx.secretKey, users, users.id, undefined, page, (row) =>
    presentUser(row, row.role === 'member' ? clientsOfUser(ctx.db, row.id) : []),
  )
}

/** Admins may see who else has access; only owners change it. */
function requireOwnerOrAdmin(ctx: Ctx): void {
  const user = ctx.actor.user
  if (user && user.role !== 'owner' && user.role !== 'admin')
    throw forbidden('Only owners and admins can list users', { role: user.role })
}

export function getUser(ctx: Ctx, id: string) {
  requireOwnerOrAdmin(ctx)
  const row = findUser(ctx, id)
  return presentUser(row, clientsOfUser(ctx.db, id))
}

export function updateUser(ctx: Ctx, input: UpdateUserInput) {
  requireOwner(ctx)
  const row = findUser(ctx, input.id)
  const role = input.role ?? row.role
  if (row.role === 'owner' && role !== 'owner' && ownersOtherThan(ctx, row.id) === 0) throw lastOwner()
  const updated =
    role === row.role
      ? row
      : ctx.db.update(users).set({ role }).where(eq(users.id, row.id)).returning().get()!
  if (role !== 'member') setClients(ctx, row.id, [])
  else if (input.clients !== undefined) setClients(ctx, row.id, resolveClients(ctx, input.clients))
  return presentUser(updated, clientsOfUser(ctx.db, row.id))
}

/** A new password ends every session of the user (a reset is what follows a leak). */
export function resetPassword(ctx: Ctx, id: string, passwordHash: string) {
  requireOwner(ctx)
  const row = findUser(ctx, id)
  ctx.db.update(users).set({ passwordHash }).where(eq(users.id, id)).run()
  ctx.db.delete(portalSessions).where(eq(portalSessions.userId, id)).run()
  return presentUser(row, clientsOfUser(ctx.db, id))
}

export function deleteUser(ctx: Ctx, id: string) {
  requireOwner(ctx)
  const row = findUser(ctx, id)
  if (ctx.actor.kind === 'user' && ctx.actor.id === id) throw forbidden('You cannot delete yourself')
  if (row.role === 'owner' && ownersOtherThan(ctx, id) === 0) throw lastOwner()
  const view = presentUser(row, clientsOfUser(ctx.db, id))
  ctx.db.delete(users).where(eq(users.id, id)).run()
  return { ...view, deleted: true as const }
}
