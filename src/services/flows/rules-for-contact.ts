import { type SQL, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { DIALECT } from '../../db/dialect'
import { rawRows } from '../../db/raw'
import { lists } from '../../db/schema'
import { ownedIds } from '../../db/tenant'
import type { Awaitable } from '../../lib/awaitable'
import { recordIdsIn } from '../../lib/ids'
import { compileSegment, type RuleGroup } from '../segments/rules'

// A condition's or goal's rule groups, compiled by the segment compiler once and asked for ONE
// contact at a time through a prepared statement: `SELECT 1 FROM contacts WHERE <rules> AND id = ?`.

type Dialect = { sqlToQuery(s: SQL): { sql: string; params: unknown[] } }

export type ContactTest = (contactId: string) => Awaitable<boolean>

export async function compileContactTest(
  db: Db,
  clientId: string,
  node: Record<string, unknown>,
  now: number,
): Promise<ContactTest> {
  const known = await ownedIds(db, lists, clientId, recordIdsIn(node.rule_groups))
  const listExists = (id: string) => known.has(id)
  const match = node.match === 'any' ? 'any' : 'all'
  const compiled = compileSegment(match, node.rule_groups as RuleGroup[], { now, listExists })
  // Checked on save; a list deleted since then makes the rule false rather than stopping everyone.
  if (!compiled.sql) return () => false
  // PostgreSQL: the statement through the pool or the step's transaction (no connection of its
  // own to prepare on); the server keeps the plan of a repeated statement.
  if (DIALECT === 'postgres') {
    const rules = compiled.sql
    return async (contactId) =>
      (
        await rawRows(
          db,
          sql`SELECT 1 AS one FROM contacts WHERE contacts.client_id = ${clientId} AND (${rules}) AND contacts.id = ${contactId} LIMIT 1`,
        )
      ).length > 0
  }
  const marker = '\u0000contact'
  const q = (db as unknown as { dialect: Dialect }).dialect.sqlToQuery(
    sql`SELECT 1 AS one FROM contacts WHERE contacts.client_id = ${clientId} AND (${compiled.sql}) AND contacts.id = ${marker}`,
  )
  const stmt = db.$client.prepare<{ one: number }, never[]>(q.sql)
  const params = q.params.slice(0, -1)
  return async (contactId) => (await stmt.get(...(params as never[]), contactId as never)) !== null
}
