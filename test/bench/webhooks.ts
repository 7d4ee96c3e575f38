// Webhook performance bars of issue 6 (run with `bun run test/bench/webhooks.ts`; Linux, needs /proc):
//  1. Fan-out to a local receiver sustains >= 2,000 deliveries/s (one endpoint, and four).
//  2. p50 from event commit to the first attempt arriving at the receiver <= 50 ms.
//  3. 10,000 pending deliveries to a dead endpoint cost no measurable CPU while they wait for
//     their next attempt (server CPU while waiting vs. the same server idle).
//  4. Burst (issue 15, part 4): 20,000 `email.delivered` events of one capture campaign, produced
//     within one second (20 commits of 1,000, one every 50 ms), reach one endpoint at >= 2,000/s
//     with p50 from each event's created_at to its arrival <= 1 s, and none lost.
// The compiled dist/herald (built when missing or stale) serves on a free 127.0.0.1 port; events
// are inserted straight into its SQLite file (WAL, second writer) exactly as recordEvent writes
// them (appendEvent: the next seq from event_sequence, in the inserting transaction), and the
// dispatcher picks them up by seq. Receivers are Bun.serve instances answering 204.
// Prints a Markdown table and, last, one JSON line with every figure. Exits 1 if a bar is missed,
// 2 on an error.
//
// Flags: --events N (events to one endpoint, default 20000), --fanout-events N (events to four
// endpoints, 5000 → 20000 deliveries), --rate N (latency phase events/s, 200), --latency-seconds S
// (5), --dead N (dead-endpoint deliveries, 10000), --cpu-seconds S (10), --phase-timeout S (180),
// --burst N (burst events, 20000), --burst-ms MS (the span they are produced in, 1000),
// --phases a,b (any of latency, one, four, dead, burst; default all).
// HERALD_WEBHOOK_CONCURRENCY in the bench's environment is passed on to the server.

import { Database } from 'bun:sqlite'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Server } from 'bun'
import { appendEvent, type EventInsert } from '../../src/db/events'
import { inTransaction } from '../../src/db/transaction'
import {
  api,
  ensureBinary,
  freePort,
  type Herald,
  HOST,
  heraldCli,
  progress,
  runBench,
  startHerald,
  stderrTail,
  stopHerald,
  unlimitedKey,
} from './lib'

const EVENT_TYPE = 'contact.unsubscribed'
const START_TIMEOUT_MS = 20_000
const STOP_TIMEOUT_MS = 15_000
const REQUEST_TIMEOUT_MS = 10_000
const INSERT_BATCH = 1000
const STALL_MS = 30_000
const THROUGHPUT_BAR = 2000
const LATENCY_BAR_MS = 50
const BURST_LATENCY_BAR_MS = 1000
const BURST_EVENT_TYPE = 'email.delivered'
const BURST_COMMITS = 20
/** Two clock-tick readings (utime, stime) each ±1 tick over the window: the measurement's noise. */
const CPU_NOISE_TICKS = 2

const { values: flags } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    'fanout-events': { type: 'string', default: '5000' },
    rate: { type: 'string', default: '200' },
    'latency-seconds': { type: 'string', default: '5' },
    dead: { type: 'string', default: '10000' },
    'cpu-seconds': { type: 'string', default: '10' },
    'phase-timeout': { type: 'string', default: '180' },
    burst: { type: 'string', default: '20000' },
    'burst-ms': { type: 'string', default: '1000' },
    phases: { type: 'string', default: 'latency,one,four,dead,burst' },
  },
})
const num = (name: keyof typeof flags) => {
  const n = Number(flags[name])
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`)
  return n
}
const EVENTS_ONE = Math.floor(num('events'))
const EVENTS_FOUR = Math.floor(num('fanout-events'))
const RATE = num('rate')
const LATENCY_SECONDS = num('latency-seconds')
const DEAD = Math.floor(num('dead'))
const CPU_SECONDS = num('cpu-seconds')
const PHASE_TIMEOUT_MS = num('phase-timeout') * 1000
const BURST = Math.floor(num('burst'))
const BURST_MS = num('burst-ms')
const PHASES = new Set(flags.phases!.split(',').map((p) => p.trim()))
for (const p of PHASES)
  if (!['latency', 'one', 'four', 'dead', 'burst'].includes(p))
    throw new Error(`--phases: unknown phase ${p}`)

// ---------------------------------------------------------------------------------------------
// Bookkeeping: receivers, DB handle and temp dir are released on exit, error, Ctrl-C (runBench
// kills the server).

let server: Herald | null = null
const receivers: Server<undefined>[] = []
let eventsDb: Database | null = null
let workDir: string | null = null

function cleanup(): void {
  for (const r of receivers.splice(0)) r.stop(true)
  try {
    eventsDb?.close()
  } catch {}
  eventsDb = null
  if (workDir) rmSync(workDir, { recursive: true, force: true })
  workDir = null
}

// ---------------------------------------------------------------------------------------------
// Receivers: record the first arrival time (performance.now()) per webhook-id header.

interface Receiver {
  url: string
  first: Map<string, number>
  /** The same first arrivals on the wall clock (ms, fractional), to compare with created_at. */
  firstWall: Map<string, number>
  total: number
  server: Server<undefined>
}

function startReceiver(): Receiver {
  const rec = { first: new Map<string, number>(), firstWall: new Map<string, number>(), total: 0 } as Receiver
  rec.server = Bun.serve({
    port: 0,
    hostname: HOST,
    async fetch(req) {
      const at = performance.now()
      const id = req.headers.get('webhook-id') ?? ''
      await req.arrayBuffer()
      rec.total++
      if (!rec.first.has(id)) {
        rec.first.set(id, at)
        rec.firstWall.set(id, performance.timeOrigin + at)
      }
      return new Response(null, { status: 204 })
    },
  })
  receivers.push(rec.server)
  rec.url = `http://${HOST}:${rec.server.port}/hook`
  return rec
}

function stopReceiver(rec: Receiver): void {
  rec.server.stop(true)
  const i = receivers.indexOf(rec.server)
  if (i >= 0) receivers.splice(i, 1)
}

// ---------------------------------------------------------------------------------------------
// Webhooks through the API.

let clientId = ''

async function createHook(url: string, type = EVENT_TYPE): Promise<string> {
  const res = await api<{ data: { id: string } }>(server!, 'POST', `/api/v1/webhooks?client_id=${clientId}`, {
    url,
    events: [type],
  })
  return res.body.data.id
}

async function deleteHook(id: string): Promise<void> {
  await api(server!, 'DELETE', `/api/v1/webhooks/${id}`)
}

// ---------------------------------------------------------------------------------------------
// Events, written as recordEvent writes them (drizzle's json mode stores JSON.stringify text).

const toEventId = (uuid: string) => `evt_${uuid.replaceAll('-', '').toLowerCase()}`
let seq = 0

function eventRow(now: number): EventInsert {
  const id = Bun.randomUUIDv7()
  const contact = Bun.randomUUIDv7()
  const n = ++seq
  const data = {
    contact_id: `con_${contact.replaceAll('-', '')}`,
    email: `bench+${n}@example.com`,
    campaign_id: null,
    message_id: null,
    source: 'api',
    unsubscribed_at: new Date(now).toISOString(),
  }
  return {
    id,
    clientId,
    type: EVENT_TYPE,
    contactId: contact,
    messageId: null,
    campaignId: null,
    journeyId: null,
    sequenceId: null,
    occurredAt: now,
    data: JSON.stringify(data),
  }
}

/** An `email.delivered` event of a capture campaign's message, as the send worker records it. */
function deliveredRow(now: number, campaignId: string): EventInsert {
  const id = Bun.randomUUIDv7()
  const contact = Bun.randomUUIDv7()
  const message = Bun.randomUUIDv7()
  const n = ++seq
  const data = {
    message_id: `msg_${message.replaceAll('-', '')}`,
    campaign_id: `cmp_${campaignId.replaceAll('-', '')}`,
    contact_id: `con_${contact.replaceAll('-', '')}`,
    email: `reader${n}@example.com`,
    channel: 'email',
    delivered_at: new Date(now).toISOString(),
  }
  return {
    id,
    clientId,
    type: BURST_EVENT_TYPE,
    contactId: contact,
    messageId: message,
    campaignId,
    journeyId: null,
    sequenceId: null,
    occurredAt: now,
    data: JSON.stringify(data),
  }
}

/** Inserts `count` events in transactions of INSERT_BATCH; returns each event's commit time. */
function insertBatches(count: number, commits: Map<string, number>): void {
  const db = eventsDb!
  let left = count
  while (left > 0) {
    const n = Math.min(INSERT_BATCH, left)
    const ids: string[] = []
    db.transaction(() => {
      const now = Date.now()
      for (let i = 0; i < n; i++) {
        const e = eventRow(now)
        appendEvent(db, e)
        ids.push(e.id)
      }
    })()
    const committed = performance.now()
    for (const id of ids) commits.set(toEventId(id), committed)
    left -= n
  }
}

/** Waits until every receiver has `expected` distinct arrivals; bounded by time and by stalls. */
async function waitArrivals(recs: Receiver[], expected: number): Promise<boolean> {
  const started = Date.now()
  let last = -1
  let lastChange = Date.now()
  for (;;) {
    const got = recs.reduce((s, r) => s + r.first.size, 0)
    if (got >= expected * recs.length) return true
    if (got !== last) {
      last = got
      lastChange = Date.now()
    }
    if (Date.now() - started > PHASE_TIMEOUT_MS || Date.now() - lastChange > STALL_MS) return false
    await Bun.sleep(5)
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d

// ---------------------------------------------------------------------------------------------
// Phases.

interface ThroughputResult {
  endpoints: number
  events: number
  deliveries: number
  delivered: number
  complete: boolean
  seconds: number
  per_second: number
  /** Rate between the 10th and 90th percentile arrival (excludes the start-up and the tail). */
  steady_per_second: number
  insert_ms: number
  duplicates: number
}

async function throughput(endpoints: number, events: number): Promise<ThroughputResult> {
  const recs = Array.from({ length: endpoints }, startReceiver)
  const hooks: string[] = []
  for (const r of recs) hooks.push(await createHook(r.url))
  // A webhook gets events newer than itself (UUIDv7 order); ids from two processes within the
  // same millisecond do not compare in time order, so let the clock move on first.
  await Bun.sleep(5)
  const commits = new Map<string, number>()
  const t0 = performance.now()
  insertBatches(events, commits)
  const insertMs = performance.now() - t0
  const complete = await waitArrivals(recs, events)
  const arrivals = recs.flatMap((r) => [...r.first.values()]).sort((a, b) => a - b)
  const lastArrival = arrivals.at(-1) ?? performance.now()
  const seconds = (lastArrival - t0) / 1000
  const lo = percentile(arrivals, 10)
  const hi = percentile(arrivals, 90)
  const steadyCount = arrivals.filter((a) => a >= lo && a <= hi).length
  const duplicates = recs.reduce((s, r) => s + r.total - r.first.size, 0)
  for (const h of hooks) await deleteHook(h)
  for (const r of recs) stopReceiver(r)
  return {
    endpoints,
    events,
    deliveries: events * endpoints,
    delivered: arrivals.length,
    complete,
    seconds: round(seconds, 3),
    per_second: round(arrivals.length / seconds, 0),
    steady_per_second: hi > lo ? round((steadyCount - 1) / ((hi - lo) / 1000), 0) : Number.NaN,
    insert_ms: round(insertMs, 1),
    duplicates,
  }
}

interface LatencyResult {
  rate: number
  events: number
  delivered: number
  p50_ms: number
  p95_ms: number
  p99_ms: number
  max_ms: number
}

async function latency(): Promise<LatencyResult> {
  const rec = startReceiver()
  const hook = await createHook(rec.url)
  await Bun.sleep(5)
  const total = Math.round(RATE * LATENCY_SECONDS)
  const interval = 1000 / RATE
  const commits = new Map<string, number>()
  const t0 = performance.now()
  for (let i = 0; i < total; i++) {
    const due = t0 + i * interval
    const wait = due - performance.now()
    if (wait > 0) await Bun.sleep(wait)
    const e = eventRow(Date.now())
    const db = eventsDb!
    await inTransaction(db, async () => await appendEvent(db, e)) // committed when this resolves
    commits.set(toEventId(e.id), performance.now())
  }
  await waitArrivals([rec], total)
  const lat: number[] = []
  for (const [id, at] of rec.first) {
    const c = commits.get(id)
    if (c !== undefined) lat.push(at - c)
  }
  lat.sort((a, b) => a - b)
  await deleteHook(hook)
  stopReceiver(rec)
  return {
    rate: RATE,
    events: total,
    delivered: lat.length,
    p50_ms: round(percentile(lat, 50)),
    p95_ms: round(percentile(lat, 95)),
    p99_ms: round(percentile(lat, 99)),
    max_ms: round(lat.at(-1) ?? Number.NaN),
  }
}

interface BurstResult {
  events: number
  /** First to last commit of the burst. */
  produced_ms: number
  delivered: number
  lost: number
  duplicates: number
  complete: boolean
  /** Deliveries per second from the first event's created_at to the last arrival. */
  per_second: number
  /** created_at → arrival. */
  p50_ms: number
  p95_ms: number
  p99_ms: number
  max_ms: number
}

/**
 * A capture campaign's burst: BURST events of one campaign committed in BURST_COMMITS
 * transactions spread over BURST_MS (as the send worker commits its outcomes), one endpoint.
 */
async function burst(): Promise<BurstResult> {
  const rec = startReceiver()
  const hook = await createHook(rec.url, BURST_EVENT_TYPE)
  await Bun.sleep(5)
  const db = eventsDb!
  const campaign = Bun.randomUUIDv7()
  const created = new Map<string, number>()
  const per = Math.ceil(BURST / BURST_COMMITS)
  const t0 = performance.now()
  let first = Number.POSITIVE_INFINITY
  let left = BURST
  for (let k = 0; left > 0; k++) {
    const wait = t0 + k * (BURST_MS / BURST_COMMITS) - performance.now()
    if (wait > 0) await Bun.sleep(wait)
    const n = Math.min(per, left)
    db.transaction(() => {
      const now = Date.now()
      first = Math.min(first, now)
      for (let i = 0; i < n; i++) {
        const e = deliveredRow(now, campaign)
        appendEvent(db, e)
        created.set(toEventId(e.id), now)
      }
    })()
    left -= n
  }
  const producedMs = performance.now() - t0
  const complete = await waitArrivals([rec], BURST)
  const lat: number[] = []
  let last = first
  for (const [id, at] of rec.firstWall) {
    const c = created.get(id)
    if (c === undefined) continue
    lat.push(at - c)
    last = Math.max(last, at)
  }
  lat.sort((a, b) => a - b)
  await deleteHook(hook)
  stopReceiver(rec)
  return {
    events: BURST,
    produced_ms: round(producedMs, 0),
    delivered: lat.length,
    lost: BURST - lat.length,
    duplicates: rec.total - rec.first.size,
    complete,
    per_second: round(lat.length / ((last - first) / 1000), 0),
    p50_ms: round(percentile(lat, 50)),
    p95_ms: round(percentile(lat, 95)),
    p99_ms: round(percentile(lat, 99)),
    max_ms: round(lat.at(-1) ?? Number.NaN),
  }
}

let clockTicks = 100
function cpuTicks(pid: number): number {
  // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(rest[11]) + Number(rest[12])
}

async function cpuOver(seconds: number): Promise<{ ms: number; ms_per_s: number; ticks: number }> {
  const pid = server!.proc.pid
  const a = cpuTicks(pid)
  const t = performance.now()
  await Bun.sleep(seconds * 1000)
  const b = cpuTicks(pid)
  const wall = (performance.now() - t) / 1000
  const ms = ((b - a) * 1000) / clockTicks
  return { ms, ms_per_s: round(ms / wall, 2), ticks: b - a }
}

interface DeadResult {
  deliveries: number
  settled: boolean
  settle_seconds: number
  attempts_min: number
  next_attempt_in_s: number
  idle_cpu_ms_per_s: number
  waiting_cpu_ms_per_s: number
  extra_cpu_ms_per_s: number
  noise_ms_per_s: number
  waiting_ticks: number
  idle_ticks: number
}

async function dead(): Promise<DeadResult> {
  // Idle baseline first: the same server, nothing pending.
  const idle = await cpuOver(CPU_SECONDS)
  const port = freePort() // closed now: connections are refused
  const hook = await createHook(`http://${HOST}:${port}/hook`)
  await Bun.sleep(5)
  const db = eventsDb!
  const t0 = performance.now()
  insertBatches(DEAD, new Map())
  // Settled = every delivery exists, is pending, has failed at least once, and its next attempt
  // lies beyond the measuring window (with the default schedule: after the 5 s retry, 5 min).
  const windowMs = (CPU_SECONDS + 5) * 1000
  const stateQuery = db.query(
    `SELECT count(*) AS n, min(attempts) AS a, min(next_attempt_at) AS t,
            sum(status = 'pending') AS p FROM webhook_deliveries WHERE webhook_id = ?`,
  )
  let settled = false
  let state = { n: 0, a: 0, t: 0, p: 0 }
  const deadline = Date.now() + PHASE_TIMEOUT_MS * 2
  while (Date.now() < deadline) {
    state = (await stateQuery.get(hook)) as typeof state
    if (state.n >= DEAD && state.p >= DEAD && state.a >= 1 && state.t > Date.now() + windowMs) {
      settled = true
      break
    }
    await Bun.sleep(250)
  }
  const settleSeconds = (performance.now() - t0) / 1000
  if (!settled) progress(`dead endpoint did not settle: ${JSON.stringify(state)}`)
  await Bun.sleep(500) // let the last outcome's transaction and timers finish
  const waiting = await cpuOver(CPU_SECONDS)
  const after = (await stateQuery.get(hook)) as typeof state
  const noise = round((CPU_NOISE_TICKS * 1000) / clockTicks / CPU_SECONDS, 2)
  return {
    deliveries: after.n,
    settled,
    settle_seconds: round(settleSeconds, 1),
    attempts_min: after.a,
    next_attempt_in_s: round((after.t - Date.now()) / 1000, 0),
    idle_cpu_ms_per_s: idle.ms_per_s,
    waiting_cpu_ms_per_s: waiting.ms_per_s,
    extra_cpu_ms_per_s: round(waiting.ms_per_s - idle.ms_per_s, 2),
    noise_ms_per_s: noise,
    waiting_ticks: waiting.ticks,
    idle_ticks: idle.ticks,
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<boolean> {
  if (process.platform !== 'linux') throw new Error('needs Linux (/proc/<pid>/stat)')
  const tck = Bun.spawnSync(['getconf', 'CLK_TCK'])
  if (tck.exitCode === 0) clockTicks = Number(tck.stdout.toString().trim()) || 100
  await ensureBinary()

  workDir = mkdtempSync(join(tmpdir(), 'herald-bench-webhooks-'))
  const dataDir = join(workDir, 'data')
  await heraldCli(['migrate', '--data', dataDir])
  const key = await unlimitedKey(dataDir)
  server = await startHerald(
    dataDir,
    key,
    {
      HERALD_WEBHOOK_ALLOW_PRIVATE: '1',
      ...(process.env.HERALD_WEBHOOK_CONCURRENCY
        ? { HERALD_WEBHOOK_CONCURRENCY: process.env.HERALD_WEBHOOK_CONCURRENCY }
        : {}),
    },
    {
      bootstrap: false,
      stderrFile: join(workDir, 'server-stderr.log'),
      timeoutMs: START_TIMEOUT_MS,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
    },
  )
  const clients = (await api<{ data: { id: string; name: string }[] }>(server, 'GET', '/api/v1/clients')).body
    .data
  const def = clients.find((c) => c.name === 'Default workspace') ?? clients[0]
  if (!def) throw new Error('no client found')
  clientId = def.id

  eventsDb = new Database(join(dataDir, 'herald.db'))
  await eventsDb.run('PRAGMA busy_timeout = 10000')

  const run = async <T>(phase: string, what: string, f: () => Promise<T>): Promise<T | null> => {
    if (!PHASES.has(phase)) return null
    progress(what)
    return await f()
  }
  const lat = await run('latency', `latency: ${RATE} events/s for ${LATENCY_SECONDS} s`, latency)
  const one = await run('one', `throughput: ${EVENTS_ONE} events → 1 endpoint`, () =>
    throughput(1, EVENTS_ONE),
  )
  const four = await run('four', `throughput: ${EVENTS_FOUR} events → 4 endpoints`, () =>
    throughput(4, EVENTS_FOUR),
  )
  const burstRes = await run(
    'burst',
    `burst: ${BURST} events of a capture campaign within ${BURST_MS} ms`,
    burst,
  )
  const deadRes = await run(
    'dead',
    `dead endpoint: ${DEAD} deliveries, CPU over ${CPU_SECONDS} s (idle baseline first)`,
    dead,
  )

  const tpMet = (r: ThroughputResult) => r.complete && r.per_second >= THROUGHPUT_BAR
  const latMet = (r: LatencyResult) => r.delivered === r.events && r.p50_ms <= LATENCY_BAR_MS
  const deadMet = (r: DeadResult) => r.settled && r.extra_cpu_ms_per_s <= r.noise_ms_per_s
  const burstMet = (r: BurstResult) =>
    r.complete && r.lost === 0 && r.per_second >= THROUGHPUT_BAR && r.p50_ms <= BURST_LATENCY_BAR_MS
  const yes = (b: boolean) => (b ? 'yes' : '**no**')
  const tpRow = (r: ThroughputResult) =>
    `| Fan-out, ${r.endpoints} endpoint${r.endpoints > 1 ? 's' : ''} (${r.deliveries} deliveries) | ` +
    `${r.per_second}/s (steady ${r.steady_per_second}/s${r.complete ? '' : `, only ${r.delivered} arrived`}) | ≥ ${THROUGHPUT_BAR}/s | ${yes(tpMet(r))} |`
  const lines = [
    '## Webhook performance bars (issues 6 and 15)',
    '',
    '| measure | result | bar | met? |',
    '| --- | --- | --- | --- |',
    ...(one ? [tpRow(one)] : []),
    ...(four ? [tpRow(four)] : []),
    ...(lat
      ? [
          `| Commit → first attempt at ${lat.rate} events/s | p50 ${lat.p50_ms} ms, p95 ${lat.p95_ms} ms, p99 ${lat.p99_ms} ms | p50 ≤ ${LATENCY_BAR_MS} ms | ${yes(latMet(lat))} |`,
        ]
      : []),
    ...(burstRes
      ? [
          `| Burst: ${burstRes.events} events produced in ${burstRes.produced_ms} ms → 1 endpoint | ${burstRes.per_second}/s, created_at → arrival p50 ${burstRes.p50_ms} ms, p95 ${burstRes.p95_ms} ms, lost ${burstRes.lost}, duplicates ${burstRes.duplicates} | ≥ ${THROUGHPUT_BAR}/s, p50 ≤ ${BURST_LATENCY_BAR_MS} ms, lost 0 | ${yes(burstMet(burstRes))} |`,
        ]
      : []),
    ...(deadRes
      ? [
          `| ${deadRes.deliveries} pending to a dead endpoint, CPU while waiting | ${deadRes.waiting_cpu_ms_per_s} ms/s (idle ${deadRes.idle_cpu_ms_per_s} ms/s, +${deadRes.extra_cpu_ms_per_s})${deadRes.settled ? '' : ' (not settled)'} | no measurable extra (≤ ${deadRes.noise_ms_per_s} ms/s noise) | ${yes(deadMet(deadRes))} |`,
        ]
      : []),
    '',
  ]
  process.stdout.write(lines.join('\n') + '\n')
  const met = {
    throughput_1: one ? tpMet(one) : null,
    throughput_4: four ? tpMet(four) : null,
    latency: lat ? latMet(lat) : null,
    burst: burstRes ? burstMet(burstRes) : null,
    dead_endpoint_cpu: deadRes ? deadMet(deadRes) : null,
  }
  const summary = {
    bench: 'webhooks',
    concurrency: process.env.HERALD_WEBHOOK_CONCURRENCY ?? null,
    throughput_1: one,
    throughput_4: four,
    latency: lat,
    burst: burstRes,
    dead_endpoint: deadRes,
    clk_tck: clockTicks,
    met,
  }
  process.stdout.write(JSON.stringify(summary) + '\n')
  await stopHerald(server, { timeoutMs: STOP_TIMEOUT_MS, strict: false })
  return Object.values(met).every((m) => m !== false)
}

/** A failure comes with the tail of the server's stderr; exit code 2 (1 is a missed bar). */
async function mainWithStderr(): Promise<boolean> {
  try {
    return await main()
  } catch (err) {
    const tail = server ? await stderrTail(server) : ''
    if (tail) process.stderr.write(`server stderr (tail):\n${tail}\n`)
    throw err
  }
}

runBench(mainWithStderr, { cleanup, errorExitCode: 2, sigtermExitCode: 143 })
