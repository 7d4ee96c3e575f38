import { eq } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { clients, type UserRow, userClients, users } from '../../db/schema'
import type { PortalRole } from '../actors/actor'

// What a portal user may reach: the role, and for a member the chosen clients. Read on every
// portal request (sessions), so it is two indexed look-ups.

export interface PortalIdentity {
  id: string
  email: string
  role: PortalRole
  timezone: string
  /** Clients a member may switch to; null = every client (owner, admin, viewer). */
  clients: string[] | null
}

export async function clientsOfUser(db: Db, userId: string): Promise<string[]> {
  return (
    await db.select({ id: userClients.clientId }).from(userClients).where(eq(userClients.userId, userId))
  ).map((r) => r.id)
}

export async function identityOf(db: Db, row: UserRow): Promise<PortalIdentity> {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    timezone: row.timezone,
    clients: row.role === 'member' ? await clientsOfUser(db, row.id) : null,
  }
}

export async function loadIdentity(db: Db, userId: string): Promise<PortalIdentity | null> {
  const row = (await db.select().from(users).where(eq(users.id, userId)).limit(1))[0]
  return row ? await identityOf(db, row) : null
}

/** The workspaces a user may pick in the header, by name. */
export async function workspacesOf(
  db: Db,
  identity: PortalIdentity,
): Promise<{ id: string; name: string }[]> {
  const all = await db.select({ id: clients.id, name: clients.name }).from(clients).orderBy(clients.createdAt)
  return identity.clients === null ? all : all.filter((c) => identity.clients!.includes(c.id))
}
