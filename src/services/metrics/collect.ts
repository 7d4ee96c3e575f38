import type { Database } from 'bun:sqlite'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { type SQL, sql } from 'drizzle-orm'
import { Counter, collectDefaultMetrics, Gauge, type Registry } from 'prom-client'
import type { AppContext } from '../../context'
import type { Db } from '../../db/client'
import { DB_FILE } from '../../db/data-dir'
import { DIALECT } from '../../db/dialect'
import { rawRows } from '../../db/raw'
import type { Awaitable } from '../../lib/awaitable'
import { diskSpace } from '../instance/readiness'

// What a scrape reads from the database: only maintained totals (campaign counters, import
// counts, the event sequence) and queue depths counted through their indexes up to a cap, so a
// scrape costs the same with a million contacts as with ten.

/** A queue deeper than this reads as this: enough to see it is stuck or backed up. */
export const QUEUE_DEPTH_CAP = 10_000

const CAMPAIGN_STATUSES = [
  'sent',
  'delivered',
  'failed',
  'skipped',
  'bounced',
  'opened',
  'clicked',
  'unsubscribed',
] as const

// v8's heap-space statistics take milliseconds to read under Bun: left out of the defaults.
const SLOW_DEFAULTS = ['space_size_total', 'space_size_used', 'space_size_available'].map(
  (s) => `herald_nodejs_heap_${s}_bytes`,
)

const registered = new WeakSet<Registry>()

/**
 * The metrics in Prometheus' text format. The first scrape registers the scrape-time metrics
 * and the process defaults (event-loop lag, RSS, CPU…): an app no one scrapes (tests, the CLI)
 * never starts the event-loop monitor.
 */
export function scrapeMetrics(app: AppContext): Promise<string> {
  const { registry } = app.metrics
  if (!registered.has(registry)) {
    registered.add(registry)
    registerDatabaseMetrics(registry, app, app.config.dataDir)
  }
  return registry.metrics()
}

function registerDatabaseMetrics(registry: Registry, app: AppContext, dataDir: string): void {
  collectDefaultMetrics({ register: registry, prefix: 'herald_' })
  for (const name of SLOW_DEFAULTS) registry.removeSingleMetric(name)
  const registers = [registry]
  const q = DIALECT === 'postgres' ? pgQueries(app.db) : queries(app.sqlite)

  new Gauge({
    name: 'herald_campaign_messages',
    help: 'Campaign messages by channel and status, from the campaigns’ running totals',
    labelNames: ['channel', 'status'] as const,
    registers,
    async collect() {
      this.reset()
      for (const row of await q.campaignTotals.all())
        for (const s of CAMPAIGN_STATUSES) this.set({ channel: row.channel, status: s }, row[s] ?? 0)
    },
  })
  new Gauge({
    name: 'herald_queue_depth',
    help: `Messages queued to send by source, and webhook deliveries pending (read as ${QUEUE_DEPTH_CAP} above that)`,
    labelNames: ['source'] as const,
    registers,
    async collect() {
      this.set(
        { source: 'campaign' },
        await cappedSum(
          await q.sendingCampaigns.all(),
          async (id, limit) => await q.campaignQueued.get(id, limit),
        ),
      )
      this.set({ source: 'transactional' }, (await q.transactionalQueued.get(QUEUE_DEPTH_CAP))?.n ?? 0)
      this.set(
        { source: 'flow' },
        await cappedSum(await q.activeFlows.all(), async (id, limit) => await q.flowQueued.get(id, limit)),
      )
      this.set({ source: 'webhook' }, (await q.webhooksPending.get(QUEUE_DEPTH_CAP))?.n ?? 0)
    },
  })
  new Counter({
    name: 'herald_import_rows_total',
    help: 'Rows of every import by outcome (processed, inserted, updated, skipped)',
    labelNames: ['outcome'] as const,
    registers,
    async collect() {
      const t = await q.importTotals.get()
      this.reset()
      for (const k of ['processed', 'inserted', 'updated', 'skipped'] as const)
        this.inc({ outcome: k }, t?.[k] ?? 0)
    },
  })
  new Counter({
    name: 'herald_events_written_total',
    help: 'Events written to the event log (its sequence number)',
    registers,
    async collect() {
      this.reset()
      this.inc((await q.lastEventSeq.get())?.last_seq ?? 0)
    },
  })
  new Gauge({
    name: 'herald_database_bytes',
    help: 'Size of the data file and of its write-ahead log (on PostgreSQL: the database, as db)',
    labelNames: ['file'] as const,
    registers,
    async collect() {
      if (DIALECT === 'postgres') {
        this.set({ file: 'db' }, await postgresDatabaseBytes(app.db))
        return
      }
      const path = join(dataDir, DB_FILE)
      this.set({ file: 'db' }, fileSize(path))
      this.set({ file: 'wal' }, fileSize(`${path}-wal`))
    },
  })
  new Gauge({
    name: 'herald_data_volume_bytes',
    help: 'The data volume: free (as Herald may use it) and total bytes',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      const { free, total } = diskSpace(dataDir)
      this.set({ kind: 'free' }, free)
      this.set({ kind: 'total' }, total)
    },
  })
}

type CountRow = { n: number }

function queries(sqlite: Database) {
  const countUpTo = (where: string) =>
    sqlite.query<CountRow, (string | number)[]>(`SELECT count(*) AS n FROM (SELECT 1 FROM ${where} LIMIT ?)`)
  return {
    campaignTotals: sqlite.query<
      { channel: string } & Record<(typeof CAMPAIGN_STATUSES)[number], number>,
      []
    >(
      `SELECT channel, ${CAMPAIGN_STATUSES.map((s) => `sum(${s}) AS ${s}`).join(', ')} FROM campaigns GROUP BY channel`,
    ),
    sendingCampaigns: sqlite.query<{ id: string }, []>("SELECT id FROM campaigns WHERE status = 'sending'"),
    campaignQueued: countUpTo("messages WHERE campaign_id = ? AND status = 'queued'"),
    // Named: SQLite (no statistics) would walk the campaign index past every queued flow message.
    transactionalQueued: countUpTo(
      "messages INDEXED BY messages_transactional_idx WHERE campaign_id IS NULL AND source_id IS NULL AND status = 'queued'",
    ),
    activeFlows: sqlite.query<{ id: string }, []>(
      "SELECT id FROM journeys WHERE status = 'active' UNION ALL SELECT id FROM sequences WHERE status = 'active'",
    ),
    flowQueued: countUpTo("messages WHERE source_id = ? AND status = 'queued'"),
    webhooksPending: countUpTo("webhook_deliveries WHERE status = 'pending'"),
    importTotals: sqlite.query<Record<'processed' | 'inserted' | 'updated' | 'skipped', number | null>, []>(
      'SELECT sum(processed) AS processed, sum(inserted) AS inserted, sum(updated) AS updated, sum(skipped) AS skipped FROM contact_imports',
    ),
    lastEventSeq: sqlite.query<{ last_seq: number }, []>('SELECT last_seq FROM event_sequence WHERE id = 1'),
  }
}

/**
 * The same reads on PostgreSQL, in the shape of the prepared statements above. Sums and counts
 * come back as strings from the driver: cast to double precision.
 */
function pgQueries(db: Db): ReturnType<typeof queries> {
  const all =
    <T>(query: SQL) =>
    () =>
      rawRows<T>(db, query)
  const countUpTo = (where: (arg: string | null) => SQL) => ({
    get: async (...args: (string | number)[]) => {
      const [arg, limit] = args.length === 2 ? [String(args[0]), Number(args[1])] : [null, Number(args[0])]
      return (
        (
          await rawRows<CountRow>(
            db,
            sql`SELECT count(*)::double precision AS n FROM (SELECT 1 FROM ${where(arg)} LIMIT ${limit}) q`,
          )
        )[0] ?? null
      )
    },
  })
  const sums = sql.raw(CAMPAIGN_STATUSES.map((s) => `sum(${s})::double precision AS ${s}`).join(', '))
  return {
    campaignTotals: { all: all(sql`SELECT channel, ${sums} FROM campaigns GROUP BY channel`) },
    sendingCampaigns: { all: all(sql`SELECT id FROM campaigns WHERE status = 'sending'`) },
    campaignQueued: countUpTo((id) => sql`messages WHERE campaign_id = ${id} AND status = 'queued'`),
    transactionalQueued: countUpTo(
      () => sql`messages WHERE campaign_id IS NULL AND source_id IS NULL AND status = 'queued'`,
    ),
    activeFlows: {
      all: all(
        sql`SELECT id FROM journeys WHERE status = 'active' UNION ALL SELECT id FROM sequences WHERE status = 'active'`,
      ),
    },
    flowQueued: countUpTo((id) => sql`messages WHERE source_id = ${id} AND status = 'queued'`),
    webhooksPending: countUpTo(() => sql`webhook_deliveries WHERE status = 'pending'`),
    importTotals: {
      get: async () =>
        (
          await rawRows<Record<'processed' | 'inserted' | 'updated' | 'skipped', number | null>>(
            db,
            sql`SELECT sum(processed)::double precision AS processed, sum(inserted)::double precision AS inserted,
              sum(updated)::double precision AS updated, sum(skipped)::double precision AS skipped FROM contact_imports`,
          )
        )[0] ?? null,
    },
    lastEventSeq: {
      get: async () =>
        (
          await rawRows<{ last_seq: number }>(
            db,
            sql`SELECT last_seq::double precision AS last_seq FROM event_sequence WHERE id = 1`,
          )
        )[0] ?? null,
    },
  } as unknown as ReturnType<typeof queries>
}

async function postgresDatabaseBytes(db: Db): Promise<number> {
  const rows = await rawRows<{ n: number }>(
    db,
    sql`SELECT pg_database_size(current_database())::double precision AS n`,
  )
  return rows[0]?.n ?? 0
}

/** Sums each id's bounded count until the cap is reached: 100 sending campaigns cost one cap. */
async function cappedSum(
  ids: { id: string }[],
  count: (id: string, limit: number) => Awaitable<CountRow | null>,
): Promise<number> {
  let total = 0
  for (const { id } of ids) {
    if (total >= QUEUE_DEPTH_CAP) break
    total += (await count(id, QUEUE_DEPTH_CAP - total))?.n ?? 0
  }
  return total
}

function fileSize(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}
