import type { Database } from 'bun:sqlite'
import { sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { isPgHandle, withPgTransaction } from '../../db/postgres/in-transaction'
import { perConnection } from '../../db/prepared'
import { rawRows, rawRun } from '../../db/raw'
import { contactsHighWater } from './search-index'

// clients.unreachable_count (migration 0030): contacts bounced hard, complained or whose address
// is suppressed, each once — the deliverability score's list_hygiene. New contacts are counted
// here, inside the transaction that inserted them, by the code that inserts them (createContact,
// the CSV import): a per-row INSERT trigger doubled the CPU of an insert. Updates, deletes and
// every write to suppressions are counted by the migration's triggers.

const B = `('bounced', 'complained')`
/** Up to this many new rows, they are read back; beyond, the indexes are walked instead. */
const FEW_ROWS = 64

const statements = perConnection((sqlite) => ({
  // The new rows themselves (a rowid range: `+client_id` keeps the planner off the client's
  // index, which would walk all its contacts), each probed in the client's suppressions.
  rows: sqlite.prepare<{ n: number }, [string, number]>(
    `SELECT count(*) AS n FROM contacts WHERE seq > ?2 AND +client_id = ?1 AND (status IN ${B}
         OR EXISTS (SELECT 1 FROM suppressions WHERE suppressions.client_id = ?1 AND suppressions.email = lower(contacts.email)))`,
  ),
  suppressions: sqlite.prepare<{ n: number }, [string]>(
    'SELECT count(*) AS n FROM suppressions WHERE client_id = ?1',
  ),
  // Bounced or complained among the new rows: the (client, status) index alone (its entries
  // carry the seq), without reading the rows a batch just wrote.
  statusNew: sqlite.prepare<{ n: number }, [string, number]>(
    `SELECT count(*) AS n FROM contacts WHERE client_id = ?1 AND status IN ${B} AND seq > ?2`,
  ),
  // Suppressed among the other new rows: each suppression probed in the unique email index,
  // whose entries carry the seq too; `+` drops the column affinity so the lower(email) part of
  // the index is used.
  suppressedNew: sqlite.prepare<{ n: number }, [string, number]>(
    `SELECT count(*) AS n FROM suppressions CROSS JOIN contacts
         ON contacts.client_no = (SELECT no FROM clients WHERE id = ?1) AND lower(contacts.email) = +suppressions.email
       WHERE suppressions.client_id = ?1 AND contacts.seq > ?2 AND contacts.status NOT IN ${B}`,
  ),
  bump: sqlite.prepare<unknown, [number, string]>(
    'UPDATE clients SET unreachable_count = unreachable_count + ?1 WHERE id = ?2',
  ),
}))

/**
 * Adds the unreachable among the contacts of `clientId` inserted after `highWater` (same
 * transaction, so only ours) to its counter. A batch costs the smaller of its rows and the
 * client's suppressions: the rows read back, or the indexes walked.
 */
export async function countUnreachableAfter(
  sqlite: Database,
  clientId: string,
  highWater: number,
): Promise<void> {
  if (isPgHandle(sqlite))
    return await withPgTransaction(sqlite, (db) => countUnreachableAfterPg(db, sqlite, clientId, highWater))
  const s = statements(sqlite)
  // The same high-water mark the caller took before inserting, now after.
  const added = (await contactsHighWater(sqlite)) - highWater
  if (added <= 0) return
  const byIndexes = added > FEW_ROWS && (await s.suppressions.get(clientId))!.n < added
  const n = byIndexes
    ? (await s.statusNew.get(clientId, highWater))!.n + (await s.suppressedNew.get(clientId, highWater))!.n
    : (await s.rows.get(clientId, highWater))!.n
  if (n > 0) await s.bump.run(n, clientId)
}

const BOUNCED = sql.raw(B)

/** One count on PostgreSQL (a bigint comes back as text). */
async function countPg(db: Db, query: ReturnType<typeof sql>): Promise<number> {
  return Number((await rawRows<{ n: string }>(db, query))[0]?.n ?? 0)
}

/**
 * countUnreachableAfter on PostgreSQL: the same two ways, without SQLite's planner hints (the
 * unary `+`), which PostgreSQL's planner needs not.
 */
async function countUnreachableAfterPg(
  db: Db,
  sqlite: Database,
  clientId: string,
  highWater: number,
): Promise<void> {
  const added = (await contactsHighWater(sqlite)) - highWater
  if (added <= 0) return
  const byIndexes =
    added > FEW_ROWS &&
    (await countPg(db, sql`SELECT count(*) AS n FROM suppressions WHERE client_id = ${clientId}`)) < added
  const n = byIndexes
    ? (await countPg(
        db,
        sql`SELECT count(*) AS n FROM contacts WHERE client_id = ${clientId} AND status IN ${BOUNCED} AND seq > ${highWater}`,
      )) +
      (await countPg(
        db,
        sql`SELECT count(*) AS n FROM suppressions JOIN contacts
              ON contacts.client_no = (SELECT no FROM clients WHERE id = ${clientId}) AND lower(contacts.email) = suppressions.email
            WHERE suppressions.client_id = ${clientId} AND contacts.seq > ${highWater} AND contacts.status NOT IN ${BOUNCED}`,
      ))
    : await countPg(
        db,
        sql`SELECT count(*) AS n FROM contacts WHERE seq > ${highWater} AND client_id = ${clientId} AND (status IN ${BOUNCED}
              OR EXISTS (SELECT 1 FROM suppressions WHERE suppressions.client_id = ${clientId} AND suppressions.email = lower(contacts.email)))`,
      )
  if (n > 0)
    await rawRun(
      db,
      sql`UPDATE clients SET unreachable_count = unreachable_count + ${n} WHERE id = ${clientId}`,
    )
}
