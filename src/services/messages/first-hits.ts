import type { Database } from 'bun:sqlite'
import { sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { DIALECT } from '../../db/dialect'
import { perConnection } from '../../db/prepared'
import { rawRows, rawRun } from '../../db/raw'

// Tracking links are public and can be fetched any number of times (a bot, a reload loop, a
// script). Each hit is counted on the message, but only the first hit on each target makes an
// event, and so a webhook delivery: the open pixel once for the reader and once for a privacy
// proxy, and each clicked link once, for at most MAX_CLICKED_LINKS links per message.

/** Distinct links of one message whose first click makes an event. */
export const MAX_CLICKED_LINKS = 10
/** The user agent kept in an open or click event (and its webhook body). */
export const MAX_USER_AGENT = 512

const OPEN = 'open'
const MACHINE_OPEN = 'open:machine'

const statements = perConnection((sqlite: Database) => ({
  countOpen: sqlite.prepare<unknown, [number]>(
    'UPDATE messages SET opens_count = opens_count + 1 WHERE seq = ?1',
  ),
  countClick: sqlite.prepare<unknown, [number]>(
    'UPDATE messages SET clicks_count = clicks_count + 1 WHERE seq = ?1',
  ),
  claim: sqlite.prepare<unknown, [number, string]>(
    'INSERT OR IGNORE INTO message_first_hits (message_seq, target) VALUES (?1, ?2)',
  ),
  links: sqlite.prepare<{ n: number }, [number, string, string]>(
    'SELECT count(*) AS n FROM message_first_hits WHERE message_seq = ?1 AND target NOT IN (?2, ?3)',
  ),
}))

/** The store's two faces: its connection (SQLite's prepared statements) and its drizzle db. */
interface Store {
  sqlite: Database
  db: Db
}

// PostgreSQL: the same statements through drizzle, in the caller's transaction.
const pg = {
  count: (db: Db, seq: number, column: 'opens_count' | 'clicks_count') =>
    rawRun(
      db,
      sql`UPDATE messages SET ${sql.identifier(column)} = ${sql.identifier(column)} + 1 WHERE seq = ${seq}`,
    ),
  claim: async (db: Db, seq: number, target: string) =>
    (await rawRun(
      db,
      sql`INSERT INTO message_first_hits (message_seq, target) VALUES (${seq}, ${target}) ON CONFLICT DO NOTHING`,
    )) > 0,
  links: async (db: Db, seq: number) =>
    (
      await rawRows<{ n: number }>(
        db,
        sql`SELECT count(*)::int AS n FROM message_first_hits WHERE message_seq = ${seq} AND target NOT IN (${OPEN}, ${MACHINE_OPEN})`,
      )
    )[0]!.n,
}

/** Counts an open pixel fetch; true when it is the first of its kind (reader or machine). */
export async function firstOpen(
  { sqlite, db }: Store,
  messageSeq: number,
  machine: boolean,
): Promise<boolean> {
  if (DIALECT === 'postgres') {
    await pg.count(db, messageSeq, 'opens_count')
    return await pg.claim(db, messageSeq, machine ? MACHINE_OPEN : OPEN)
  }
  const s = statements(sqlite)
  await s.countOpen.run(messageSeq)
  return (await s.claim.run(messageSeq, machine ? MACHINE_OPEN : OPEN)).changes > 0
}

/** Counts a click; true when it is the link's first and the message is under its bound of links. */
export async function firstClick({ sqlite, db }: Store, messageSeq: number, url: string): Promise<boolean> {
  if (DIALECT === 'postgres') {
    await pg.count(db, messageSeq, 'clicks_count')
    if ((await pg.links(db, messageSeq)) >= MAX_CLICKED_LINKS) return false
    return await pg.claim(db, messageSeq, url)
  }
  const s = statements(sqlite)
  await s.countClick.run(messageSeq)
  if ((await s.links.get(messageSeq, OPEN, MACHINE_OPEN))!.n >= MAX_CLICKED_LINKS) return false
  return (await s.claim.run(messageSeq, url)).changes > 0
}

/** A user agent as stored: at most MAX_USER_AGENT UTF-16 units, never half a surrogate pair. */
export function storedUserAgent(ua: string | null): string | null {
  if (ua === null || ua.length <= MAX_USER_AGENT) return ua
  const code = ua.charCodeAt(MAX_USER_AGENT - 1)
  return ua.slice(0, code >= 0xd800 && code <= 0xdbff ? MAX_USER_AGENT - 1 : MAX_USER_AGENT)
}
