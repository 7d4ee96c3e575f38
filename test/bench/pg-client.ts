// Which PostgreSQL client Herald uses: postgres.js (npm `postgres`) or Bun's built-in SQL, measured
// in one run on the same server (test/helpers/postgres.ts starts one, or HERALD_TEST_POSTGRES_URL
// names it), each in a database of its own, alternating round by round; the best round counts.
//   - round trip: sequential single-row primary-key selects
//   - pipelining: 64 lanes of selects at once on a pool of 10
//   - transactions: BEGIN + 3 small statements + COMMIT, one after another
//   - bulk: CRM-like contacts (test/bench/crm-export.ts) by 1,000-row multi-row INSERTs, then by COPY
//   - the drizzle adapter of each: transaction with several awaits, bigint as number,
//     onConflictDoNothing + returning
// `bun run test/bench/pg-client.ts [--rows N] [--rounds R]`; a Markdown table goes to stdout.
import { parseArgs } from 'node:util'
import { SQL as BunSQL } from 'bun'
import { eq, getTableColumns } from 'drizzle-orm'
import { drizzle as bunDrizzle } from 'drizzle-orm/bun-sql'
import { drizzle as pgjsDrizzle } from 'drizzle-orm/postgres-js'
import postgres from 'postgres'
import { freshDatabase } from '../helpers/postgres'
import { crmRow } from './crm-export'
import { fmt, progress, runBench } from './lib'
import { contacts, drizzleChecks } from './pg-client-drizzle'

const { values: args } = parseArgs({
  options: { rows: { type: 'string', default: '200000' }, rounds: { type: 'string', default: '2' } },
})
const ROWS = Number(args.rows)
const ROUNDS = Number(args.rounds)
const BATCH = 1_000
const POOL = 10
const LANES = 64
const SELECTS = 20_000
const TXS = 2_000
const DRIZZLE_ROWS = Math.min(ROWS, 50_000)

const SCHEMA = `
  CREATE TABLE contacts (
    id bigint PRIMARY KEY, client_id bigint NOT NULL, email text NOT NULL, first_name text,
    last_name text, company text, phone text, plan text, seats integer, created_at bigint NOT NULL);
  CREATE UNIQUE INDEX contacts_client_email ON contacts (client_id, lower(email));
  CREATE TABLE counters (id bigint PRIMARY KEY, n bigint NOT NULL);
  INSERT INTO counters SELECT g, 0 FROM generate_series(1, 100) g;`
// The drizzle table's column names, in its order: the raw statements and drizzle's write the same.
const COLUMNS = Object.values(getTableColumns(contacts)).map((c) => c.name)

type Contact = Record<string, string | number>
const contact = (i: number): Contact => {
  const r = crmRow(i)
  return {
    id: i,
    client_id: 1 + (i % 3),
    email: r.email,
    first_name: r.first,
    last_name: r.last,
    company: r.company,
    phone: r.phone,
    plan: r.plan,
    seats: Number(r.seats),
    created_at: 1_700_000_000_000 + i,
  }
}
/** Rows from..from+BATCH-1, no further than ROWS. */
const batch = (from: number): Contact[] =>
  Array.from({ length: Math.min(BATCH, ROWS - from + 1) }, (_, k) => contact(from + k))
const csvField = (v: string | number) =>
  typeof v === 'string' && /[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : String(v)
const csvLine = (c: Contact) => `${COLUMNS.map((k) => csvField(c[k]!)).join(',')}\n`

/** The tagged-template surface both clients share; each adapts the rest. */
// biome-ignore lint/suspicious/noExplicitAny: the two clients' tag types differ only in their generics
type Tag = any

interface Client {
  name: string
  sql: Tag
  /** drizzle over the same pool. */
  db: ReturnType<typeof pgjsDrizzle> | ReturnType<typeof bunDrizzle>
  copy(chunks: AsyncIterable<string>): Promise<void>
  close(): Promise<void>
}

function postgresJs(url: string): Client {
  const sql = postgres(url, { max: POOL, onnotice: () => {} })
  return {
    name: 'postgres.js 3.4.9',
    sql,
    db: pgjsDrizzle({ client: sql }),
    async copy(chunks) {
      const stream = await sql`COPY contacts (${sql(COLUMNS)}) FROM STDIN (FORMAT csv)`.writable()
      for await (const chunk of chunks)
        if (!stream.write(chunk)) await new Promise((r) => stream.once('drain', r))
      await new Promise<void>((resolve, reject) => {
        stream.once('finish', resolve)
        stream.once('error', reject)
        stream.end()
      })
    },
    close: () => sql.end(),
  }
}

function bunSql(url: string): Client {
  const sql = new BunSQL({ url, max: POOL })
  return {
    name: `Bun SQL (bun ${Bun.version})`,
    sql,
    db: bunDrizzle({ client: sql }),
    async copy(chunks) {
      const writer = sql
        .unsafe(`COPY contacts (${COLUMNS.join(', ')}) FROM STDIN (FORMAT csv)`)
        .writable()
        .getWriter()
      for await (const chunk of chunks) await writer.write(chunk)
      await writer.close()
    },
    close: () => sql.close(),
  }
}

async function* csvChunks(n: number): AsyncIterable<string> {
  for (let from = 1; from <= n; from += BATCH) {
    let chunk = ''
    for (let i = from; i < from + BATCH && i <= n; i++) chunk += csvLine(contact(i))
    yield chunk
  }
}

/** Per second, from a count and a start time. */
const rate = (n: number, t0: number) => (n * 1000) / (performance.now() - t0)

async function measure(c: Client): Promise<Record<string, number>> {
  const { sql } = c
  const out: Record<string, number> = {}
  await sql`TRUNCATE contacts`
  let t0 = performance.now()
  for (let from = 1; from <= ROWS; from += BATCH) {
    const rows = batch(from)
    await sql`INSERT INTO contacts ${sql(rows, ...COLUMNS)}`
  }
  out['multi-row INSERT, rows/s'] = rate(ROWS, t0)

  await sql`TRUNCATE contacts`
  t0 = performance.now()
  await c.copy(csvChunks(ROWS))
  out['COPY FROM STDIN, rows/s'] = rate(ROWS, t0)
  const [{ n }] = await sql`SELECT count(*)::int AS n FROM contacts`
  if (n !== ROWS) throw new Error(`${c.name}: COPY stored ${n} rows, not ${ROWS}`)
  await sql`VACUUM ANALYZE contacts`

  const id = (k: number) => 1 + ((k * 7919) % ROWS)
  t0 = performance.now()
  for (let k = 0; k < SELECTS; k++) await sql`SELECT id, email, first_name FROM contacts WHERE id = ${id(k)}`
  out['sequential PK select, /s'] = rate(SELECTS, t0)

  t0 = performance.now()
  const perLane = Math.ceil(SELECTS / LANES)
  await Promise.all(
    Array.from({ length: LANES }, async (_, lane) => {
      for (let k = 0; k < perLane; k++)
        await sql`SELECT id, email, first_name FROM contacts WHERE id = ${id(lane * perLane + k)}`
    }),
  )
  out['64 concurrent PK selects, /s'] = rate(perLane * LANES, t0)

  t0 = performance.now()
  for (let k = 0; k < TXS; k++)
    await sql.begin(async (tx: Tag) => {
      const row = 1 + (k % 100)
      await tx`UPDATE counters SET n = n + 1 WHERE id = ${row}`
      await tx`SELECT n FROM counters WHERE id = ${row}`
      await tx`UPDATE contacts SET seats = seats + 1 WHERE id = ${id(k)}`
    })
  out['BEGIN + 3 statements + COMMIT, /s'] = rate(TXS, t0)

  const db = c.db as ReturnType<typeof pgjsDrizzle>
  t0 = performance.now()
  for (let k = 0; k < SELECTS; k++)
    await db
      .select({ id: contacts.id, email: contacts.email })
      .from(contacts)
      .where(eq(contacts.id, id(k)))
  out['drizzle: sequential PK select, /s'] = rate(SELECTS, t0)

  await sql`DELETE FROM contacts WHERE id > ${ROWS - DRIZZLE_ROWS}`
  t0 = performance.now()
  for (let from = ROWS - DRIZZLE_ROWS + 1; from <= ROWS; from += BATCH) {
    await db.insert(contacts).values(batch(from) as (typeof contacts.$inferInsert)[])
  }
  out['drizzle: 1,000-row INSERT, rows/s'] = rate(DRIZZLE_ROWS, t0)
  return out
}

runBench(async () => {
  const clients = [postgresJs(await freshDatabase()), bunSql(await freshDatabase())]
  for (const c of clients) await c.sql.unsafe(SCHEMA)
  const best = new Map<string, Record<string, number>>()
  for (let round = 1; round <= ROUNDS; round++)
    for (const c of clients) {
      progress(`round ${round}: ${c.name}`)
      const got = await measure(c)
      const prev = best.get(c.name) ?? {}
      for (const [k, v] of Object.entries(got)) prev[k] = Math.max(prev[k] ?? 0, v)
      best.set(c.name, prev)
    }
  const checks = [
    await drizzleChecks('postgres-js', await freshDatabase()),
    await drizzleChecks('bun-sql', await freshDatabase()),
  ]
  for (const c of clients) await c.close()

  const names = clients.map((c) => c.name)
  const lines = [
    `| measure (best of ${ROUNDS}, ${fmt(ROWS)} rows) | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---:').join('|')}|`,
  ]
  for (const k of Object.keys(best.get(names[0]!)!))
    lines.push(`| ${k} | ${names.map((n) => fmt(best.get(n)![k]!)).join(' | ')} |`)
  lines.push('', '| drizzle check | drizzle-orm/postgres-js | drizzle-orm/bun-sql |', '|---|---|---|')
  for (const k of Object.keys(checks[0]!)) lines.push(`| ${k} | ${checks.map((c) => c[k]).join(' | ')} |`)
  console.log(lines.join('\n'))
  return true
})
