import type { Database } from 'bun:sqlite'
import type { Db } from './client'
import { DIALECT } from './dialect'
import * as pg from './postgres/rollups'
import { perConnection } from './prepared'
import {
  type CampaignTotals,
  QUARTER_MS,
  quarterOf,
  ROLLUP_COUNTERS,
  type RollupCounter,
  type RollupDeltas,
  type RollupFilter,
  type RollupSource,
  type RollupTotals,
} from './rollup-counters'

// The analytics rollups' SQL (schema/analytics.ts): the upsert every event writer adds through,
// in the transaction of the change; the reads the analytics verbs make (never the event log);
// and the rebuild from the messages' first-time columns, which hold the same facts. Two tables
// with the same counters: analytics_rollups per source, analytics_totals per client and
// channel (summed over sources) for the client-wide reads, which then sum far fewer rows.
// On PostgreSQL the same statements are postgres/rollups.ts: the writes then return a promise
// (to await in the transaction of the change); on SQLite they stay synchronous.

export {
  type CampaignTotals,
  QUARTER_MS,
  quarterOf,
  ROLLUP_COUNTERS,
  type RollupCounter,
  type RollupDeltas,
  type RollupFilter,
  type RollupSource,
  type RollupTotals,
} from './rollup-counters'

/** The rollup keys' journey and sequence columns ('' = none). */
const journeyOf = (s: RollupSource) => (s.sourceKind === 'journey' ? (s.sourceId ?? '') : '')
const sequenceOf = (s: RollupSource) => (s.sourceKind === 'sequence' ? (s.sourceId ?? '') : '')

const COLUMNS = ROLLUP_COUNTERS.join(', ')
const SUMS = ROLLUP_COUNTERS.map((c) => `coalesce(sum(${c}), 0) AS ${c}`).join(', ')
const KEY = 'client_id, bucket, channel, campaign_id, journey_id, sequence_id'
const TOTALS_KEY = 'client_id, bucket, channel'
const ADD_ALL = ROLLUP_COUNTERS.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')

/** An upsert as the write path uses it (a prepared statement, or the bench's no-op). */
type Upsert = { run(...args: (string | number)[]): unknown }

const upserts = perConnection((sqlite: Database) => ({
  add: sqlite.prepare(
    `INSERT INTO analytics_rollups (${KEY}, ${COLUMNS})
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ${ROLLUP_COUNTERS.map((_, i) => `?${i + 7}`).join(', ')})
     ON CONFLICT (${KEY}) DO UPDATE SET ${ADD_ALL}`,
  ) as Upsert,
  addTotals: sqlite.prepare(
    `INSERT INTO analytics_totals (${TOTALS_KEY}, ${COLUMNS})
     VALUES (?1, ?2, ?3, ${ROLLUP_COUNTERS.map((_, i) => `?${i + 4}`).join(', ')})
     ON CONFLICT (${TOTALS_KEY}) DO UPDATE SET ${ADD_ALL}`,
  ) as Upsert,
}))

/** The upserts the write path calls for a connection: the prepared ones unless a bench swapped them. */
const writers = perConnection((sqlite: Database) => ({ ...upserts(sqlite) }))

const NO_WRITE: Upsert = { run: () => undefined }

/**
 * For the analytics bench only (test/bench/analytics.ts measures the send rate with and without
 * the rollup writes in one run): swaps this connection's upserts for no-ops, or back. The write
 * path reads no switch, so production pays nothing for this, and other connections are untouched.
 */
export function setRollupWrites(sqlite: Database, on: boolean): void {
  Object.assign(writers(sqlite), on ? upserts(sqlite) : { add: NO_WRITE, addTotals: NO_WRITE })
}

const statements = perConnection((sqlite: Database) => ({
  // Newest quarters first, summed over sources: the alert's "last 1,000 sends" walk.
  recent: sqlite.prepare<{ bucket: number; sent: number; bounced: number; complained: number }, [string]>(
    `SELECT bucket, sum(sent) AS sent, sum(bounced) AS bounced, sum(complained) AS complained
     FROM analytics_totals WHERE client_id = ?1 GROUP BY bucket ORDER BY bucket DESC`,
  ),
}))

const values = (d: RollupDeltas) => ROLLUP_COUNTERS.map((c) => d[c] ?? 0)

/** The store a read runs on: the app context (its SQLite connection, or its PostgreSQL db). */
export interface RollupStore {
  sqlite: Database
  db: Db
}

/**
 * Adds to one source's quarter. Call it in the transaction that records the change, and await
 * what it returns (a promise on PostgreSQL, nothing on SQLite).
 */
export function addToRollup(
  sqlite: Database,
  s: RollupSource,
  at: number,
  deltas: RollupDeltas,
): undefined | Promise<void> {
  if (DIALECT === 'postgres')
    return pg.inCallersTransaction(sqlite, async (db) => {
      await pg.addToSource(db, s, journeyOf(s), sequenceOf(s), quarterOf(at), deltas)
      await pg.addToTotals(db, s.clientId, quarterOf(at), s.channel, deltas)
    })
  addToSource(sqlite, s, quarterOf(at), deltas)
  addToTotals(sqlite, s.clientId, quarterOf(at), s.channel, deltas)
  return undefined
}

function addToSource(sqlite: Database, s: RollupSource, bucket: number, deltas: RollupDeltas): void {
  const v = values(deltas)
  writers(sqlite).add.run(
    s.clientId,
    bucket,
    s.channel,
    s.campaignId ?? '',
    journeyOf(s),
    sequenceOf(s),
    ...v,
  )
}

function addToTotals(
  sqlite: Database,
  clientId: string,
  bucket: number,
  channel: string,
  deltas: RollupDeltas,
): void {
  writers(sqlite).addTotals.run(clientId, bucket, channel, ...values(deltas))
}

/**
 * Counts of a batch (the send queue's outcomes), summed per source and quarter in memory and
 * written with one upsert each when flushed.
 */
export function createRollupBatch() {
  const pending = new Map<string, { s: RollupSource; at: number; d: RollupDeltas }>()
  return {
    add(s: RollupSource, at: number, counter: RollupCounter): void {
      const bucket = quarterOf(at)
      const key = `${s.clientId}|${bucket}|${s.channel}|${s.campaignId ?? ''}|${s.sourceKind ?? ''}|${s.sourceId ?? ''}`
      let e = pending.get(key)
      if (!e) {
        e = { s, at: bucket, d: {} }
        pending.set(key, e)
      }
      e.d[counter] = (e.d[counter] ?? 0) + 1
    },
    /** Writes the batch: synchronously on SQLite, through the returned promise on PostgreSQL. */
    flush(sqlite: Database): undefined | Promise<void> {
      if (DIALECT === 'postgres') {
        const entries = [...pending.values()]
        pending.clear()
        return pg.inCallersTransaction(sqlite, async (db) => {
          const totals = sumTotals(entries)
          for (const { s, at, d } of entries) await pg.addToSource(db, s, journeyOf(s), sequenceOf(s), at, d)
          for (const t of totals) await pg.addToTotals(db, t.clientId, t.bucket, t.channel, t.d)
        })
      }
      const totals = new Map<string, { clientId: string; bucket: number; channel: string; d: RollupDeltas }>()
      for (const { s, at, d } of pending.values()) {
        addToSource(sqlite, s, at, d)
        const key = `${s.clientId}|${at}|${s.channel}`
        const t = totals.get(key)
        if (!t) totals.set(key, { clientId: s.clientId, bucket: at, channel: s.channel, d: { ...d } })
        else for (const c of ROLLUP_COUNTERS) if (d[c]) t.d[c] = (t.d[c] ?? 0) + d[c]!
      }
      for (const t of totals.values()) addToTotals(sqlite, t.clientId, t.bucket, t.channel, t.d)
      pending.clear()
      return undefined
    },
  }
}

/** A batch's per-client totals (PostgreSQL's flush; SQLite's sums them inline). */
function sumTotals(entries: { s: RollupSource; at: number; d: RollupDeltas }[]) {
  const totals = new Map<string, { clientId: string; bucket: number; channel: string; d: RollupDeltas }>()
  for (const { s, at, d } of entries) {
    const key = `${s.clientId}|${at}|${s.channel}`
    const t = totals.get(key)
    if (!t) totals.set(key, { clientId: s.clientId, bucket: at, channel: s.channel, d: { ...d } })
    else for (const c of ROLLUP_COUNTERS) if (d[c]) t.d[c] = (t.d[c] ?? 0) + d[c]!
  }
  return [...totals.values()]
}

/** The table and condition of a read: per source when one is named, else the client's totals. */
function where(clientId: string, from: number, to: number, f: RollupFilter) {
  const conds = ['client_id = ?', 'bucket >= ?', 'bucket < ?']
  const args: (string | number)[] = [clientId, from, to]
  let table = 'analytics_totals'
  // A source filter pins the other two to '' so the source index is used from its first column.
  if (f.campaignId !== undefined || f.journeyId !== undefined || f.sequenceId !== undefined) {
    table = 'analytics_rollups'
    conds.push('campaign_id = ?', 'journey_id = ?', 'sequence_id = ?')
    args.push(f.campaignId ?? '', f.journeyId ?? '', f.sequenceId ?? '')
  }
  if (f.channel !== undefined) {
    conds.push('channel = ?')
    args.push(f.channel)
  }
  return { table, sql: conds.join(' AND '), args }
}

/** Totals over [from, to) (quarter-aligned ms). */
export async function rollupTotals(
  { sqlite, db }: RollupStore,
  clientId: string,
  from: number,
  to: number,
  filter: RollupFilter = {},
): Promise<RollupTotals> {
  if (DIALECT === 'postgres') return await pg.rollupTotals(db, clientId, from, to, filter)
  const w = where(clientId, from, to, filter)
  return (await sqlite
    .query<RollupTotals, (string | number)[]>(`SELECT ${SUMS} FROM ${w.table} WHERE ${w.sql}`)
    .get(...w.args))!
}

/** The first quarter with activity of a source (its whole-life window), or null. */
export async function firstBucket(
  { sqlite, db }: RollupStore,
  clientId: string,
  filter: RollupFilter,
): Promise<number | null> {
  if (DIALECT === 'postgres') return await pg.firstBucket(db, clientId, filter)
  const w = where(clientId, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, filter)
  return (
    (
      await sqlite
        .query<{ b: number | null }, (string | number)[]>(
          `SELECT min(bucket) AS b FROM ${w.table} WHERE ${w.sql}`,
        )
        .get(...w.args)
    )?.b ?? null
  )
}

/** One counter per quarter over [from, to), only the quarters that have rows, in order. */
export async function rollupSeries(
  { sqlite, db }: RollupStore,
  clientId: string,
  counter: RollupCounter,
  from: number,
  to: number,
  filter: RollupFilter = {},
): Promise<{ bucket: number; n: number }[]> {
  if (!(ROLLUP_COUNTERS as readonly string[]).includes(counter)) throw new Error(`unknown counter ${counter}`)
  if (DIALECT === 'postgres') return await pg.rollupSeries(db, clientId, counter, from, to, filter)
  const w = where(clientId, from, to, filter)
  return await sqlite
    .query<{ bucket: number; n: number }, (string | number)[]>(
      `SELECT bucket, sum(${counter}) AS n FROM ${w.table} WHERE ${w.sql} GROUP BY bucket ORDER BY bucket`,
    )
    .all(...w.args)
}

/**
 * The client's totals per UTC day over [from, to), days without activity left out: the score
 * sums them for its window and reads the volume of each day from the same rows.
 */
export async function dailyTotals(
  { sqlite, db }: RollupStore,
  clientId: string,
  from: number,
  to: number,
): Promise<RollupTotals[]> {
  if (DIALECT === 'postgres') return await pg.dailyTotals(db, clientId, from, to)
  return await sqlite
    .query<RollupTotals, [string, number, number]>(
      `SELECT ${SUMS} FROM analytics_totals WHERE client_id = ?1 AND bucket >= ?2 AND bucket < ?3
       GROUP BY bucket / 86400000`,
    )
    .all(clientId, from, to)
}

/**
 * Totals per campaign over [from, to): the deliverability breakdown, from the covering partial
 * index analytics_rollups_campaign_idx (campaign rows only, no table reads).
 */
export async function campaignTotals(
  { sqlite, db }: RollupStore,
  clientId: string,
  from: number,
  to: number,
): Promise<CampaignTotals[]> {
  if (DIALECT === 'postgres') return await pg.campaignTotals(db, clientId, from, to)
  return await sqlite
    .query<CampaignTotals, [string, number, number]>(
      `SELECT campaign_id, sum(sent) AS sent, sum(delivered) AS delivered, sum(bounced) AS bounced,
         sum(complained) AS complained, sum(unsubscribed) AS unsubscribed
       FROM analytics_rollups
       WHERE client_id = ?1 AND bucket >= ?2 AND bucket < ?3 AND campaign_id <> ''
       GROUP BY campaign_id`,
    )
    .all(clientId, from, to)
}

/**
 * The client's most recent quarters holding at least `sends` sends (all of them when it has
 * sent fewer), summed: the window of the bounce and complaint alerts.
 */
export type RecentWindow = { sent: number; bounced: number; complained: number }

/** recentWindow on either store: synchronous on SQLite (the walk stops early), one query on PostgreSQL. */
export function recentWindowOf(
  { sqlite, db }: RollupStore,
  clientId: string,
  sends: number,
): RecentWindow | Promise<RecentWindow> {
  if (DIALECT === 'postgres') return pg.recentWindow(db, clientId, sends)
  return recentWindow(sqlite, clientId, sends)
}

export function recentWindow(
  sqlite: Database,
  clientId: string,
  sends: number,
): { sent: number; bounced: number; complained: number } {
  const out = { sent: 0, bounced: 0, complained: 0 }
  for (const r of statements(sqlite).recent.iterate(clientId)) {
    out.sent += r.sent
    out.bounced += r.bounced
    out.complained += r.complained
    if (out.sent >= sends) break
  }
  return out
}

/** The message column each counter is recorded from (its first time). */
const SOURCE_COLUMNS: Record<RollupCounter, string> = {
  sent: 'sent_at',
  delivered: 'delivered_at',
  opened: 'opened_at',
  machine_opened: 'machine_opened_at',
  clicked: 'clicked_at',
  replied: 'replied_at',
  bounced: 'bounced_at',
  unsubscribed: 'unsubscribed_at',
  complained: 'complained_at',
}

/**
 * Recomputes the rollups (of one client, or all) from the messages: each counter is the
 * message's first-time column, so the result equals what the writers added one by one. Call
 * it in a write transaction. Returns the rows written.
 */
export async function rebuildRollups({ sqlite, db }: RollupStore, clientId: string | null): Promise<number> {
  if (DIALECT === 'postgres') return await pg.rebuildRollups(db, clientId, SOURCE_COLUMNS)
  const scope = clientId === null ? '' : 'AND client_id = ?1'
  const args = clientId === null ? [] : [clientId]
  const onlyClient = clientId === null ? '' : 'WHERE client_id = ?1'
  await sqlite.query(`DELETE FROM analytics_rollups ${onlyClient}`).run(...args)
  await sqlite.query(`DELETE FROM analytics_totals ${onlyClient}`).run(...args)
  const parts = ROLLUP_COUNTERS.map((c) => {
    const col = SOURCE_COLUMNS[c]
    const flags = ROLLUP_COUNTERS.map((k) => `${k === c ? 1 : 0} AS ${k}`).join(', ')
    return `SELECT client_id, ${col} - (${col} % ${QUARTER_MS}) AS bucket, channel,
        coalesce(campaign_id, '') AS campaign_id,
        CASE source_kind WHEN 'journey' THEN source_id ELSE '' END AS journey_id,
        CASE source_kind WHEN 'sequence' THEN source_id ELSE '' END AS sequence_id, ${flags}
      FROM messages WHERE ${col} IS NOT NULL ${scope}`
  })
  const sums = ROLLUP_COUNTERS.map((c) => `sum(${c})`).join(', ')
  const result = await sqlite
    .query(
      `INSERT INTO analytics_rollups (${KEY}, ${COLUMNS})
       SELECT ${KEY}, ${sums} FROM (${parts.join(' UNION ALL ')}) GROUP BY ${KEY}`,
    )
    .run(...args)
  await sqlite
    .query(
      `INSERT INTO analytics_totals (${TOTALS_KEY}, ${COLUMNS})
       SELECT ${TOTALS_KEY}, ${sums} FROM analytics_rollups ${onlyClient} GROUP BY ${TOTALS_KEY}`,
    )
    .run(...args)
  return result.changes
}
