// Herald on PostgreSQL against Herald on SQLite, in one run (`bun run bench -- --store postgres`,
// or `bun run test/bench/stores.ts [--rows N] [--rounds R] [--duration S]`). The same binary, the
// same work, once per store and round, interleaved (SQLite, PostgreSQL, SQLite, …):
//  - CSV import of N rows (default 100,000) of test/bench/crm-export.ts (names, companies,
//    human-formatted phones, custom columns; ~0.5 % bad phones) into a list, end to end: upload,
//    background job, polled to completion. Bar: PostgreSQL ≥ 0.5 × SQLite's rows/s.
//  - A capture-provider campaign to that list (the 2 KB CRM template), launch → sent.
//    Bar: PostgreSQL ≥ 0.5 × SQLite's messages/s.
//  - REST read: wrk -t1 -c50 on GET /api/v1/clients/{id} with an unlimited key, the server on
//    core 0 and wrk on core 1 (PostgreSQL's own processes unpinned). Bar: ≥ 0.5 × SQLite's req/s.
// PostgreSQL is Debian's server, a cluster this script starts with durable settings (fsync and
// synchronous commit on, as it ships), one fresh database per round. Each store's best round
// counts: noise on a shared machine only ever slows a run down.
// Prints a Markdown table and one JSON line; exit code 1 when a bar is missed.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { SQL } from 'bun'
import { startCluster } from '../helpers/postgres-cluster'
import { springTemplate } from './crm-audience'
import { writeCrmCsv } from './crm-export'
import {
  api,
  BenchError,
  ensureBinary,
  fmt,
  type Herald,
  progress,
  runBench,
  runCommand,
  startHerald,
  stopHerald,
  unlimitedKey,
} from './lib'
import { best, type WrkResult, wrk } from './wrk'

const SERVER_CORE = '0'
const CLIENT_CORE = '1'
const BAR = 0.5
const POLL_MS = 100

type Store = 'sqlite' | 'postgres'
interface Round {
  store: Store
  importRps: number
  importMs: number
  sendRate: number
  sendMs: number
  rest: WrkResult
}

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    rows: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '1' },
    duration: { type: 'string', default: '10' },
    store: { type: 'string', default: 'postgres' },
  },
  strict: true,
})
const ROWS = Number(values.rows)
const ROUNDS = Number(values.rounds)
const DURATION = Number(values.duration)
if (!Number.isInteger(ROWS) || ROWS < 1000) throw new BenchError('--rows must be a whole number >= 1000')
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || ROUNDS > 10) throw new BenchError('--rounds must be 1..10')
if (!Number.isInteger(DURATION) || DURATION < 1) throw new BenchError('--duration must be whole seconds')
if (values.store !== 'postgres') throw new BenchError('--store: only postgres is compared with SQLite')

let workDir: string | null = null
const cleanup = () => {
  if (workDir) rmSync(workDir, { recursive: true, force: true })
  workDir = null
}

/** Polls `path` until `done` says so; throws on `failed`. */
async function until(h: Herald, path: string, done: (d: Record<string, unknown>) => boolean) {
  for (;;) {
    if (h.proc.exitCode !== null || h.proc.signalCode !== null) throw new BenchError('herald exited')
    const d = (await api<{ data: Record<string, unknown> }>(h, 'GET', path)).body.data
    if (d['status'] === 'failed') throw new BenchError(`${path} failed: ${JSON.stringify(d).slice(0, 500)}`)
    if (done(d)) return d
    await Bun.sleep(POLL_MS)
  }
}

async function measureImport(h: Herald, q: string, listId: string, csv: string) {
  const t0 = performance.now()
  const job = (
    await api<{ data: { id: string } }>(
      h,
      'POST',
      `/api/v1/contacts/imports${q}&list_id=${listId}`,
      Bun.file(csv),
      'text/csv',
    )
  ).body.data
  const done = await until(h, `/api/v1/contacts/imports/${job.id}`, (d) => d['status'] === 'completed')
  const ms = performance.now() - t0
  if (done['processed'] !== ROWS) throw new BenchError(`the import processed ${done['processed']} of ${ROWS}`)
  return { ms, rps: ROWS / (ms / 1000), inserted: done['inserted'] as number }
}

async function measureCampaign(h: Herald, q: string, listId: string, recipients: number) {
  const template = await springTemplate(h, q)
  const campaign = (
    await api(h, 'POST', `/api/v1/campaigns${q}`, {
      name: 'Spring',
      list_id: listId,
      template_id: template.id,
    })
  ).body.data
  const t0 = performance.now()
  await api(h, 'POST', `/api/v1/campaigns/${campaign.id}/launch`, { confirm: true })
  await until(h, `/api/v1/campaigns/${campaign.id}`, (d) => d['status'] === 'sent')
  const ms = performance.now() - t0
  const stats = (
    await api<{ data: { delivered: number } }>(h, 'GET', `/api/v1/campaigns/${campaign.id}/stats`)
  ).body.data
  if (stats.delivered !== recipients) throw new BenchError(`delivered ${stats.delivered} of ${recipients}`)
  return { ms, rate: recipients / (ms / 1000) }
}

async function measureRest(h: Herald, key: string): Promise<WrkResult> {
  const clientId = (await api<{ data: { id: string }[] }>(h, 'GET', '/api/v1/clients')).body.data[0]!.id
  const url = `${h.base}/api/v1/clients/${clientId}`
  const auth = [`Authorization: Bearer ${key}`]
  const run = (cmd: string[], timeoutMs: number) => runCommand(cmd, { cpus: CLIENT_CORE, timeoutMs })
  await wrk(url, 2, auth, run)
  const r = await wrk(url, DURATION, auth, run)
  if (r.errors > 0) throw new BenchError(`REST read: ${r.errors} errors of ${r.requests} requests`)
  return r
}

async function round(store: Store, n: number, csv: string, pgAdmin: SQL | null, pgUrl: string) {
  const data = join(workDir!, `${store}-${n}`)
  const env: Record<string, string> = {}
  if (store === 'postgres') {
    const name = `herald_bench_${n}`
    await pgAdmin!.unsafe(`CREATE DATABASE "${name}"`)
    const u = new URL(pgUrl)
    u.pathname = `/${name}`
    Object.assign(env, { HERALD_DATABASE_URL: u.toString() })
  }
  const bootstrap = `hrld_${'Bench0Stores1Key2'.repeat(2)}`
  let h = await startHerald(data, bootstrap, env, { timeoutMs: 60_000 })
  const clientId = (await api<{ data: { id: string }[] }>(h, 'GET', '/api/v1/clients')).body.data[0]!.id
  const q = `?client_id=${clientId}`
  const list = (await api<{ data: { id: string } }>(h, 'POST', `/api/v1/lists${q}`, { name: 'Everyone' }))
    .body.data
  progress(`${store} round ${n}: importing ${fmt(ROWS)} rows`)
  const imported = await measureImport(h, q, list.id, csv)
  progress(`  ${fmt(imported.rps)} rows/s; campaign to ${fmt(imported.inserted)} contacts`)
  const sent = await measureCampaign(h, q, list.id, imported.inserted)
  progress(`  ${fmt(sent.rate)} msg/s; REST read`)
  await stopHerald(h)
  // The read on its own core, with a key no rate limit caps; the same data.
  const key = await unlimitedKey(data, env)
  h = await startHerald(data, key, env, { bootstrap: false, cpus: SERVER_CORE, timeoutMs: 60_000 })
  const rest = await measureRest(h, key)
  progress(`  ${fmt(rest.rps)} req/s`)
  await stopHerald(h)
  return {
    store,
    importRps: imported.rps,
    importMs: imported.ms,
    sendRate: sent.rate,
    sendMs: sent.ms,
    rest,
  } satisfies Round
}

async function main(): Promise<boolean> {
  await ensureBinary()
  workDir = mkdtempSync(join(tmpdir(), 'herald-bench-stores-'))
  const csv = join(workDir, 'contacts.csv')
  await writeCrmCsv(csv, ROWS)
  progress('starting PostgreSQL (durable settings)')
  const cluster = startCluster({ durable: true })
  const pgAdmin = new SQL(cluster.url)
  const version = ((await pgAdmin.unsafe('SHOW server_version')) as { server_version: string }[])[0]!
    .server_version
  const rounds: Round[] = []
  try {
    for (let n = 1; n <= ROUNDS; n++)
      for (const store of ['sqlite', 'postgres'] as const)
        rounds.push(await round(store, n, csv, pgAdmin, cluster.url))
  } finally {
    await pgAdmin.close()
  }
  const of = (store: Store) => rounds.filter((r) => r.store === store)
  const top = (store: Store) => ({
    importRps: Math.max(...of(store).map((r) => r.importRps)),
    sendRate: Math.max(...of(store).map((r) => r.sendRate)),
    rest: best(of(store).map((r) => r.rest)),
  })
  const lite = top('sqlite')
  const pg = top('postgres')
  const rows = [
    ['CSV import', 'rows/s', lite.importRps, pg.importRps],
    ['capture campaign', 'msg/s', lite.sendRate, pg.sendRate],
    ['REST read GET /clients/{id}', 'req/s', lite.rest.rps, pg.rest.rps],
  ] as const
  console.log(`\nPostgreSQL ${version} against SQLite, ${fmt(ROWS)} rows, best of ${ROUNDS} round(s) each\n`)
  console.log('| measure | SQLite | PostgreSQL | ratio | bar | met |\n|---|---|---|---|---|---|')
  let pass = true
  for (const [m, unit, a, b] of rows) {
    const ratio = b / a
    pass &&= ratio >= BAR
    console.log(
      `| ${m} | ${fmt(a)} ${unit} | ${fmt(b)} ${unit} | ${ratio.toFixed(2)} | ≥ ${BAR} | ${ratio >= BAR ? 'yes' : '**no**'} |`,
    )
  }
  console.log(
    JSON.stringify({
      rows: ROWS,
      rounds: ROUNDS,
      postgres_version: version,
      sqlite: { import_rps: lite.importRps, send_rate: lite.sendRate, rest_rps: lite.rest.rps },
      postgres: { import_rps: pg.importRps, send_rate: pg.sendRate, rest_rps: pg.rest.rps },
      all: rounds.map((r) => ({ ...r, rest: r.rest.rps })),
    }),
  )
  return pass
}

runBench(main, { cleanup })
