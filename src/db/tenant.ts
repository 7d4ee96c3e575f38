import { and, eq, inArray, type SQL, sql } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Actor } from '../context'
import { invalidField } from '../errors'
import { notAnIdMessage, parseId } from '../lib/ids'
import type { Db } from './client'
import { DIALECT } from './dialect'
import { clients } from './schema'

// Tenancy lives here, in the data layer: services build every tenant-owned query with these
// helpers, so no handler has to remember to filter.

/**
 * `column = value` as a filter only, for a query that also names something more selective (a
 * contact, a list, ids): SQLite keeps no statistics here and chose the client's index, walking
 * all of the client's rows (50–110 ms at 200,000) where the selective index reads a few. The
 * unary plus hides the column's index from SQLite; PostgreSQL plans by its statistics (and has
 * no unary plus for text).
 */
export function eqUnindexed(column: SQLiteColumn, value: string): SQL {
  return DIALECT === 'postgres' ? eq(column, value) : sql`+${column} = ${value}`
}

/** Condition limiting rows to what the actor may see (undefined = platform-wide, sees all). */
export function visibleTo(actor: Actor, clientColumn: SQLiteColumn, filterOnly = false): SQL | undefined {
  return actor.clientId ? clientIs(clientColumn, actor.clientId, filterOnly) : undefined
}

const clientIs = (column: SQLiteColumn, id: string, filterOnly: boolean) =>
  filterOnly ? eqUnindexed(column, id) : eq(column, id)

/** A row of a tenant-owned table by id, if the actor may see it (another client's is no row). */
export async function findVisible<T extends SQLiteTable & { id: SQLiteColumn; clientId: SQLiteColumn }>(
  db: Db,
  actor: Actor,
  table: T,
  id: string,
): Promise<T['$inferSelect'] | undefined> {
  return (
    await db
      .select()
      .from(table as SQLiteTable)
      .where(and(eq(table.id, id), visibleTo(actor, table.clientId)))
      .limit(1)
  )[0] as T['$inferSelect'] | undefined
}

/**
 * Condition for list operations: a tenant key always sees only its client (the parameter is
 * ignored); a platform-wide key may narrow to one client with `client_id`.
 */
export function listFilter(
  actor: Actor,
  clientColumn: SQLiteColumn,
  requested?: string,
  /** The query names something more selective: see eqUnindexed. */
  filterOnly = false,
): SQL | undefined {
  if (actor.clientId) return clientIs(clientColumn, actor.clientId, filterOnly)
  if (requested === undefined) return undefined
  const id = parseId(requested)
  if (!id) throw invalidField('client_id', notAnIdMessage('client'))
  return clientIs(clientColumn, id, filterOnly)
}

/**
 * The client a credential (API key, OAuth client) belongs to, from its optional `client_id`
 * member: for a tenant key its own client (naming another is "no such client"); for a
 * platform-wide key the named client, which must exist, or null (platform-wide) when none is named.
 */
export async function credentialOwner(
  db: Db,
  actor: Actor,
  requested: string | null | undefined,
): Promise<string | null> {
  if (requested == null) return actor.clientId
  const id = parseId(requested)
  if (!id) throw invalidField('client_id', notAnIdMessage('client'))
  const known =
    actor.clientId !== null
      ? id === actor.clientId
      : (await db.select({ id: clients.id }).from(clients).where(eq(clients.id, id)).limit(1))[0] !==
        undefined
  if (!known) throw invalidField('client_id', 'no such client')
  return id
}

/**
 * The client a create writes into: a tenant key's own client; for a platform-wide key the
 * `client_id` query parameter, which is required and must name an existing client.
 */
export async function ownerForCreate(db: Db, actor: Actor, requested?: string): Promise<string> {
  if (actor.clientId) return actor.clientId
  if (requested === undefined)
    throw invalidField('client_id', 'is required (query parameter) when using a platform-wide key')
  const id = parseId(requested)
  if (!id) throw invalidField('client_id', notAnIdMessage('client'))
  const found = (await db.select({ id: clients.id }).from(clients).where(eq(clients.id, id)).limit(1))[0]
  if (!found) throw invalidField('client_id', 'no such client')
  return id
}

/** Which of `ids` name rows of the client's in `table`: one look-up per 500 ids. */
export async function ownedIds<T extends SQLiteTable & { id: SQLiteColumn; clientId: SQLiteColumn }>(
  db: Db,
  table: T,
  clientId: string,
  ids: Iterable<string>,
): Promise<Set<string>> {
  const all = [...ids]
  const found = new Set<string>()
  for (let i = 0; i < all.length; i += 500) {
    const rows = (await db
      .select({ id: table.id })
      .from(table as SQLiteTable)
      .where(and(inArray(table.id, all.slice(i, i + 500)), eq(table.clientId, clientId)))) as { id: string }[]
    for (const r of rows) found.add(r.id)
  }
  return found
}
