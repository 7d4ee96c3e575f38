import type { Database } from 'bun:sqlite'
import { type SQL, sql } from 'drizzle-orm'
import type { Db } from '../client'
import { rawRows, rawRun } from '../raw'
import {
  type CampaignTotals,
  QUARTER_MS,
  ROLLUP_COUNTERS,
  type RollupCounter,
  type RollupDeltas,
  type RollupFilter,
  type RollupSource,
  type RollupTotals,
} from '../rollup-counters'
import { postgresTransactionsOf } from './handle'

// The rollups' statements on PostgreSQL (the SQLite ones are src/db/rollups.ts, which calls
// these on that store). Sums and bigint columns come back as strings from the driver, so each
// read casts them to double precision. Writes run in the caller's transaction.

const KEY = sql.raw('client_id, bucket, channel, campaign_id, journey_id, sequence_id')
const TOTALS_KEY = sql.raw('client_id, bucket, channel')

// PostgreSQL needs the existing row named in DO UPDATE (an unqualified column is ambiguous).
const addAll = (table: string) =>
  sql.raw(ROLLUP_COUNTERS.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', '))
const COLUMNS = sql.raw(ROLLUP_COUNTERS.join(', '))
const SUMS = sql.raw(
  ROLLUP_COUNTERS.map((c) => `coalesce(sum(${c}), 0)::double precision AS ${c}`).join(', '),
)
const ADD_ROLLUPS = addAll('analytics_rollups')
const ADD_TOTALS = addAll('analytics_totals')

const values = (d: RollupDeltas) =>
  sql.join(
    ROLLUP_COUNTERS.map((c) => sql`${d[c] ?? 0}`),
    sql`, `,
  )

/**
 * Runs `write` on the transaction the caller is in (the write path always is); outside one
 * (a test's fixture), in a transaction of its own.
 */
export async function inCallersTransaction(
  sqlite: Database,
  write: (db: Db) => Promise<unknown>,
): Promise<void> {
  const transactions = postgresTransactionsOf(sqlite)
  if (!transactions) throw new Error('not the PostgreSQL store')
  const tx = transactions.current()
  if (tx) await write(tx as unknown as Db)
  else
    await transactions.run(async () => {
      await write(transactions.current() as unknown as Db)
    })
}

export async function addToSource(
  db: Db,
  s: RollupSource,
  journeyId: string,
  sequenceId: string,
  bucket: number,
  d: RollupDeltas,
): Promise<void> {
  await rawRun(
    db,
    sql`INSERT INTO analytics_rollups (${KEY}, ${COLUMNS})
      VALUES (${s.clientId}, ${bucket}, ${s.channel}, ${s.campaignId ?? ''}, ${journeyId}, ${sequenceId}, ${values(d)})
      ON CONFLICT (${KEY}) DO UPDATE SET ${ADD_ROLLUPS}`,
  )
}

export async function addToTotals(
  db: Db,
  clientId: string,
  bucket: number,
  channel: string,
  d: RollupDeltas,
): Promise<void> {
  await rawRun(
    db,
    sql`INSERT INTO analytics_totals (${TOTALS_KEY}, ${COLUMNS})
      VALUES (${clientId}, ${bucket}, ${channel}, ${values(d)})
      ON CONFLICT (${TOTALS_KEY}) DO UPDATE SET ${ADD_TOTALS}`,
  )
}

/** The table and condition of a read, as rollups.ts's `where` builds them for SQLite. */
function where(clientId: string, from: number, to: number, f: RollupFilter) {
  const conds: SQL[] = [sql`client_id = ${clientId}`, sql`bucket >= ${from}`, sql`bucket < ${to}`]
  let table = 'analytics_totals'
  if (f.campaignId !== undefined || f.journeyId !== undefined || f.sequenceId !== undefined) {
    table = 'analytics_rollups'
    conds.push(
      sql`campaign_id = ${f.campaignId ?? ''}`,
      sql`journey_id = ${f.journeyId ?? ''}`,
      sql`sequence_id = ${f.sequenceId ?? ''}`,
    )
  }
  if (f.channel !== undefined) conds.push(sql`channel = ${f.channel}`)
  return { table: sql.raw(table), cond: sql.join(conds, sql` AND `) }
}

export async function rollupTotals(
  db: Db,
  clientId: string,
  from: number,
  to: number,
  filter: RollupFilter,
): Promise<RollupTotals> {
  const w = where(clientId, from, to, filter)
  return (await rawRows<RollupTotals>(db, sql`SELECT ${SUMS} FROM ${w.table} WHERE ${w.cond}`))[0]!
}

export async function firstBucket(db: Db, clientId: string, filter: RollupFilter): Promise<number | null> {
  const w = where(clientId, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, filter)
  const rows = await rawRows<{ b: number | null }>(
    db,
    sql`SELECT min(bucket)::double precision AS b FROM ${w.table} WHERE ${w.cond}`,
  )
  return rows[0]?.b ?? null
}

export async function rollupSeries(
  db: Db,
  clientId: string,
  counter: RollupCounter,
  from: number,
  to: number,
  filter: RollupFilter,
): Promise<{ bucket: number; n: number }[]> {
  const w = where(clientId, from, to, filter)
  const c = sql.raw(counter)
  return await rawRows(
    db,
    sql`SELECT bucket::double precision AS bucket, sum(${c})::double precision AS n FROM ${w.table}
      WHERE ${w.cond} GROUP BY bucket ORDER BY bucket`,
  )
}

export async function dailyTotals(
  db: Db,
  clientId: string,
  from: number,
  to: number,
): Promise<RollupTotals[]> {
  return await rawRows(
    db,
    sql`SELECT ${SUMS} FROM analytics_totals WHERE client_id = ${clientId} AND bucket >= ${from} AND bucket < ${to}
      GROUP BY bucket / 86400000`,
  )
}

export async function campaignTotals(
  db: Db,
  clientId: string,
  from: number,
  to: number,
): Promise<CampaignTotals[]> {
  return await rawRows(
    db,
    sql`SELECT campaign_id, sum(sent)::double precision AS sent, sum(delivered)::double precision AS delivered,
        sum(bounced)::double precision AS bounced, sum(complained)::double precision AS complained,
        sum(unsubscribed)::double precision AS unsubscribed
      FROM analytics_rollups
      WHERE client_id = ${clientId} AND bucket >= ${from} AND bucket < ${to} AND campaign_id <> ''
      GROUP BY campaign_id`,
  )
}

/**
 * The newest quarters holding at least `sends` sends, summed. A cumulative sum in a window
 * keeps it to one statement: every quarter whose running total before it is under `sends`.
 */
export async function recentWindow(
  db: Db,
  clientId: string,
  sends: number,
): Promise<{ sent: number; bounced: number; complained: number }> {
  const rows = await rawRows<{ sent: number; bounced: number; complained: number }>(
    db,
    sql`SELECT coalesce(sum(sent), 0)::double precision AS sent, coalesce(sum(bounced), 0)::double precision AS bounced,
        coalesce(sum(complained), 0)::double precision AS complained
      FROM (
        SELECT sent, bounced, complained,
          coalesce(sum(sent) OVER (ORDER BY bucket DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
        FROM (SELECT bucket, sum(sent) AS sent, sum(bounced) AS bounced, sum(complained) AS complained
          FROM analytics_totals WHERE client_id = ${clientId} GROUP BY bucket) q
      ) w WHERE before < ${sends}`,
  )
  return rows[0] ?? { sent: 0, bounced: 0, complained: 0 }
}

/** Clients with a bounce or complaint since `since` (the health job's first sweep). */
export async function clientsHitSince(db: Db, since: number): Promise<string[]> {
  const rows = await rawRows<{ id: string }>(
    db,
    sql`SELECT id FROM clients c WHERE EXISTS (SELECT 1 FROM analytics_totals t
      WHERE t.client_id = c.id AND t.bucket >= ${since} AND (t.bounced > 0 OR t.complained > 0))`,
  )
  return rows.map((r) => r.id)
}

/** See rebuildRollups in rollups.ts: the same statements in PostgreSQL's SQL. */
export async function rebuildRollups(
  db: Db,
  clientId: string | null,
  sourceColumns: Record<RollupCounter, string>,
): Promise<number> {
  const scope = clientId === null ? sql`` : sql`AND client_id = ${clientId}`
  const onlyClient = clientId === null ? sql`` : sql`WHERE client_id = ${clientId}`
  await rawRun(db, sql`DELETE FROM analytics_rollups ${onlyClient}`)
  await rawRun(db, sql`DELETE FROM analytics_totals ${onlyClient}`)
  const parts = ROLLUP_COUNTERS.map((c) => {
    const col = sql.raw(sourceColumns[c])
    const flags = sql.raw(ROLLUP_COUNTERS.map((k) => `${k === c ? 1 : 0} AS ${k}`).join(', '))
    return sql`SELECT client_id, ${col} - (${col} % ${sql.raw(String(QUARTER_MS))}) AS bucket, channel,
        coalesce(campaign_id, '') AS campaign_id,
        CASE source_kind WHEN 'journey' THEN source_id ELSE '' END AS journey_id,
        CASE source_kind WHEN 'sequence' THEN source_id ELSE '' END AS sequence_id, ${flags}
      FROM messages WHERE ${col} IS NOT NULL ${scope}`
  })
  const sums = sql.raw(ROLLUP_COUNTERS.map((c) => `sum(${c})`).join(', '))
  const written = await rawRun(
    db,
    sql`INSERT INTO analytics_rollups (${KEY}, ${COLUMNS})
      SELECT ${KEY}, ${sums} FROM (${sql.join(parts, sql` UNION ALL `)}) m GROUP BY ${KEY}`,
  )
  await rawRun(
    db,
    sql`INSERT INTO analytics_totals (${TOTALS_KEY}, ${COLUMNS})
      SELECT ${TOTALS_KEY}, ${sums} FROM analytics_rollups ${onlyClient} GROUP BY ${TOTALS_KEY}`,
  )
  return written
}
