// Herald performance bars (run with `bun run bench`; needs Linux, `wrk` and `taskset`, 2+ cores):
//  1. Authenticated GET /api/v1/clients/{id} sustains >= 25% of the req/s of a bare Elysia
//     hello-world measured in the same run (wrk -t1 -c50, server on core 0, wrk on core 1), plus
//     p50/p99 latency at half that max rate from an open-loop client (test/bench/open-loop.ts, core 1).
//  2. Cold start of dist/herald on an existing data file to the first 200 from /api/v1/health, and
//     idle RSS after ~1 s.
//  Analytics (issue 12, test/bench/analytics.ts, its own process): its table and figures join these.
//  Portal (issue 10, test/bench/portal.ts, its own process; HERALD_BENCH_PORTAL_CONTACTS, default
//     1,000,000): render p95 of every list page and page weight; a missed bar fails the run.
//  3. MCP (test/bench/mcp.ts): tools/list p95 <= 5 ms; a read tool call <= 1.5 x the REST round
//     trip of the same operation, measured interleaved in the same run.
//  SMTP + DKIM (issues 5 and 15, test/bench/campaign-smtp.ts, its own process; HERALD_BENCH_SMTP_RECIPIENTS,
//     default 5,000): a DKIM-signed campaign over SMTP against a raw nodemailer blast that signs each
//     message, pinned and unpinned in the same run; its table and figures join these, and a missed
//     bar fails the run.
//  Sending profiles (test/bench/profiles-smtp.ts, its own process; HERALD_BENCH_PROFILE_RECIPIENTS,
//     default 4,000): two clients' own SMTP accounts sending at once ≥ 0.9 × one alone, same run.
//  CSV import (issue 15, test/bench/audience.ts --import-only, its own process; HERALD_BENCH_IMPORT_ROWS,
//     default 1,000,000): rate, ratio to a raw insert in the same run, peak RSS; a missed bar fails the run.
//  ESP feedback (test/bench/esp-feedback.ts, its own process; HERALD_BENCH_FEEDBACK_NOTIFICATIONS,
//     default 300): a provider's bounce notification → suppression and webhook queued, p99 <= 1 s.
//  Local-time delivery (test/bench/local-time.ts, its own process; HERALD_BENCH_LOCAL_TIME_RECIPIENTS,
//     default 100,000): a campaign at 09:00 in 24 zones over a simulated day on an injected clock;
//     every message leaves within 60 s after its recipient's 09:00, none before.
//  Metrics (test/bench/metrics.ts, its own process; HERALD_BENCH_METRICS_CONTACTS, default
//     1,000,000): /metrics scrape p95 <= 20 ms with 100 sent campaigns.
//  A/B campaigns (test/bench/ab-campaign.ts, its own process; HERALD_BENCH_AB_RECIPIENTS, default
//     100,000): an A/B campaign sends at ≥ 0.9 × a plain campaign's rate, same run.
//  Signup forms (test/bench/forms.ts, its own process; HERALD_BENCH_FORM_SUBMISSIONS, default 4,000):
//     200 concurrent submitters POST /f/{id} ≥ 0.5 × POST /api/v1/contacts in the same run, p95 <= 20 ms,
//     each stored and its confirmation queued; the hosted page <= 30 KB with no script.
//  Journeys (issue 11, test/bench/journeys.ts, its own process; HERALD_BENCH_JOURNEY_CONTACTS,
//     default 100,000): its table and figures join these, and a missed journey bar fails the run.
// Prints a Markdown summary and, last, one JSON line with every figure. Exits 1 if bar 1 or 3 is missed.
//
// Flags: --duration S (each measured wrk run, default 10), --warmup S (2), --rounds N (interleaved
// bare/Herald pairs, best of each counts; 3), --open-loop S (5), --cold-starts N (5), --http-only
// (bars 1 and 2 alone: no MCP and none of the script benches), --store postgres (the store bars
// alone, test/bench/stores.ts: PostgreSQL against SQLite in the same run; then test/bench/multi.ts:
// two processes on one PostgreSQL against one, and the failover after SIGKILL).

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import {
  BenchError,
  ensureBinary,
  freePort,
  type Herald,
  HOST,
  procStatusMb,
  runBench,
  runCommand,
  type Spawned,
  spawnServer,
  startHerald,
  stopServer,
  track,
  unlimitedKey,
  waitReady,
} from './lib'
import { mcpRows, measureMcp } from './mcp'
import type { OpenLoopResult } from './open-loop'
import { best, CONNECTIONS, type WrkResult, wrk } from './wrk'

const BARE_SERVER = join(import.meta.dir, 'bare-server.ts')
const OPEN_LOOP = join(import.meta.dir, 'open-loop.ts')
const SERVER_CORE = '0'
const CLIENT_CORE = '1'
const RATIO_BAR = 0.25
const POLL_MS = 5
const START_TIMEOUT_MS = 20_000
const STOP_TIMEOUT_MS = 5_000
const IDLE_MS = 1_000

const BARE_SERVER_SOURCE = `// Written by test/bench/run.ts: the bare Elysia baseline for the throughput bar. Do not edit.
import { Elysia } from 'elysia'

new Elysia().get('/', () => 'hello').listen({ port: Number(process.env.PORT), hostname: '127.0.0.1' })
`

// wrk reports through this done() hook as one JSON line, so nothing depends on its human output.

// ---------------------------------------------------------------------------------------------
// Servers pinned to the server core, stderr kept in the work dir; clients pinned to the client
// core. The work dir goes on exit, error or Ctrl-C (runBench also kills every child).

let workDir: string | null = null

function cleanup(): void {
  if (workDir) rmSync(workDir, { recursive: true, force: true })
  workDir = null
}

let spawnCount = 0
const nextStderrFile = () => join(workDir!, `stderr-${++spawnCount}.log`)
const ready = { timeoutMs: START_TIMEOUT_MS, pollMs: POLL_MS }

/** `herald serve` as it runs alone: no bootstrap key (key '' before the data dir exists). */
const serve = (dataDir: string, key: string): Promise<Herald> =>
  startHerald(
    dataDir,
    key,
    {},
    { ...ready, bootstrap: false, cpus: SERVER_CORE, stderrFile: nextStderrFile() },
  )

const stop = (s: Spawned) => stopServer(s, { timeoutMs: STOP_TIMEOUT_MS, strict: false })

/** Runs a client command to completion on the client core and returns its stdout. */
const runPinned = (cmd: string[], timeoutMs: number) => runCommand(cmd, { cpus: CLIENT_CORE, timeoutMs })

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/** The URL of the "Default workspace" client, checked to answer 200 with the key. */
async function clientUrlOf(h: Herald): Promise<string> {
  const headers = { Authorization: `Bearer ${h.key}` }
  const list = await fetch(`${h.base}/api/v1/clients`, { headers, keepalive: false })
  const clientId = ((await list.json()) as { data?: { id: string }[] }).data?.[0]?.id
  if (list.status !== 200 || !clientId)
    throw new BenchError(`GET /api/v1/clients gave ${list.status}, no client`)
  const url = `${h.base}/api/v1/clients/${clientId}`
  const probe = await fetch(url, { headers, keepalive: false })
  await probe.arrayBuffer()
  if (probe.status !== 200) throw new BenchError(`GET ${url} gave ${probe.status}`)
  return url
}

/** A discarded warm-up run, then the measured one. Any error or non-2xx answer fails the bench. */
async function measure(name: string, url: string, opts: Options, headers: string[] = []): Promise<WrkResult> {
  await wrk(url, opts.warmup, headers, runPinned)
  const result = await wrk(url, opts.duration, headers, runPinned)
  if (result.errors > 0)
    throw new BenchError(
      `${name}: ${result.errors} socket errors or non-2xx answers out of ${result.requests}`,
    )
  console.error(`  ${name}: ${Math.round(result.rps)} req/s`)
  return result
}

// ---------------------------------------------------------------------------------------------

interface Options {
  duration: number
  warmup: number
  openLoop: number
  coldStarts: number
  rounds: number
  httpOnly: boolean
  /** `postgres`: the store bars alone (test/bench/stores.ts), PostgreSQL against SQLite. */
  store: string
}

function parseOptions(): Options {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      'open-loop': { type: 'string', default: '5' },
      'cold-starts': { type: 'string', default: '5' },
      rounds: { type: 'string', default: '3' },
      'http-only': { type: 'boolean', default: false },
      store: { type: 'string' },
    },
    strict: true,
  })
  const positive = (name: string, v: string): number => {
    const n = Number(v)
    if (!Number.isInteger(n) || n < 1 || n > 600) throw new BenchError(`--${name} must be an integer 1..600`)
    return n
  }
  return {
    duration: positive('duration', values.duration),
    warmup: positive('warmup', values.warmup),
    openLoop: positive('open-loop', values['open-loop']),
    coldStarts: positive('cold-starts', values['cold-starts']),
    rounds: positive('rounds', values.rounds),
    httpOnly: values['http-only'],
    store: values.store ?? 'sqlite',
  }
}

async function preflight(): Promise<void> {
  if (process.platform !== 'linux') throw new BenchError('the benchmark needs Linux (taskset, /proc)')
  if (!Bun.which('wrk'))
    throw new BenchError(
      'wrk is not on PATH; install it first, e.g. apt-get update && apt-get install -y wrk',
    )
  if (!Bun.which('taskset')) throw new BenchError('taskset is not on PATH (package util-linux)')
  if (availableParallelism() < 2)
    throw new BenchError('the benchmark needs 2 cores (server on 0, client on 1)')
  // Built when missing; when stale only a warning (the build rewrites src/db/migrations.generated.ts).
  await ensureBinary({ log: console.error, stale: 'warn' })
  if (!existsSync(BARE_SERVER) || readFileSync(BARE_SERVER, 'utf8') !== BARE_SERVER_SOURCE)
    writeFileSync(BARE_SERVER, BARE_SERVER_SOURCE)
  // Keep this orchestrator (all its threads) off the server's core.
  const pin = Bun.spawnSync(['taskset', '-a', '-cp', CLIENT_CORE, String(process.pid)], { stdout: 'ignore' })
  if (pin.exitCode !== 0) throw new BenchError(`taskset could not pin to core ${CLIENT_CORE}`)
}

async function main(): Promise<boolean> {
  const opts = parseOptions()
  if (opts.store !== 'sqlite' && opts.store !== 'postgres')
    throw new BenchError('--store must be sqlite (the default) or postgres')
  await preflight()
  if (opts.store === 'postgres') return await runPostgresBenches()
  workDir = mkdtempSync(join(tmpdir(), 'herald-bench-'))
  const dataDir = join(workDir, 'data')
  const runStarted = performance.now()

  // First start creates the data dir, the "Default workspace" client and the admin; then stop it.
  console.error('preparing data dir')
  await stop(await serve(dataDir, ''))
  // An unlimited-tier key, so rate limiting cannot cap the run (the bootstrap key is tier `scale`).
  const key = await unlimitedKey(dataDir)
  const auth = `Authorization: Bearer ${key}`

  // Bar 2: cold starts on the existing data file.
  console.error(`cold start x${opts.coldStarts}`)
  const startMs: number[] = []
  const idleRss: number[] = []
  for (let i = 0; i < opts.coldStarts; i++) {
    const h = await serve(dataDir, key)
    startMs.push(h.readyMs)
    await Bun.sleep(IDLE_MS)
    idleRss.push(procStatusMb(h.proc.pid, 'VmRSS'))
    await stop(h)
  }

  // Bar 1: the bare baseline, then Herald, with identical wrk settings, `rounds` times interleaved.
  // Each side's best round counts: on a shared machine noise only ever slows a run down.
  console.error(
    `throughput: ${opts.rounds} round(s) of wrk -t1 -c${CONNECTIONS}, ${opts.warmup} s warm-up + ${opts.duration} s`,
  )
  const bareRuns: WrkResult[] = []
  const heraldRuns: WrkResult[] = []
  let halfRate = 0
  let openLoop: OpenLoopResult | null = null
  let rssAfterLoad = 0
  for (let round = 1; round <= opts.rounds; round++) {
    const barePort = freePort()
    const bareUrl = `http://${HOST}:${barePort}/`
    const bareServer = spawnServer([process.execPath, BARE_SERVER], {
      cpus: SERVER_CORE,
      env: { PORT: String(barePort) },
      stderrFile: nextStderrFile(),
    })
    await waitReady(bareServer, bareUrl, ready)
    bareRuns.push(await measure(`round ${round}: bare Elysia GET /`, bareUrl, opts))
    await stop(bareServer)

    const h = await serve(dataDir, key)
    const clientUrl = await clientUrlOf(h)
    heraldRuns.push(await measure(`round ${round}: Herald GET /api/v1/clients/{id}`, clientUrl, opts, [auth]))
    if (round === opts.rounds) {
      rssAfterLoad = procStatusMb(h.proc.pid, 'VmRSS')
      halfRate = Math.max(1, Math.round(best(heraldRuns).rps / 2))
      console.error(`open loop: ${halfRate} req/s for ${opts.openLoop} s`)
      openLoop = JSON.parse(
        await runPinned(
          [process.execPath, OPEN_LOOP, clientUrl, String(halfRate), String(opts.openLoop), auth],
          (opts.openLoop + 60) * 1000,
        ),
      ) as OpenLoopResult
    }
    await stop(h)
  }
  if (!openLoop) throw new BenchError('no open-loop result')

  // With --http-only the rest is skipped (bars 1 and 2 alone, e.g. to compare builds of the HTTP path).
  const skipped: ScriptBench = { table: [], json: 'skipped (--http-only)', pass: true }
  const script = (run: () => Promise<ScriptBench>) => (opts.httpOnly ? skipped : run())
  // Bar 3: the MCP door on the same binary and data file (its client on the client core).
  let mcp: Awaited<ReturnType<typeof measureMcp>> | null = null
  if (!opts.httpOnly) {
    console.error('mcp: tools/list, and a read tool call against its REST round trip')
    const mcpServer = await serve(dataDir, key)
    mcp = await measureMcp(mcpServer)
    await stop(mcpServer)
  }
  // Analytics (test/bench/analytics.ts, in process on data of its own): its table and JSON line join ours.
  const analytics = await script(runAnalyticsBench)
  // Portal (test/bench/portal.ts, in process on data of its own): its table and JSON line join ours.
  const portal = await script(runPortalBench)
  // SMTP + DKIM (test/bench/campaign-smtp.ts, its own servers and data): its table and JSON line join ours.
  const smtp = await script(runSmtpBench)
  // Two sending profiles at once against one (test/bench/profiles-smtp.ts, its own server and data).
  const profiles = await script(runProfilesBench)
  // ESP feedback (test/bench/esp-feedback.ts, its own server and data): its table and JSON line join ours.
  const feedback = await script(runFeedbackBench)
  // Signup forms (test/bench/forms.ts, its own server and data): its table and JSON line join ours.
  const signup = await script(runFormsBench)
  // Journeys (test/bench/journeys.ts, its own server and data): its table and JSON line join ours.
  const journeys = await script(runJourneyBench)
  // Local-time delivery (test/bench/local-time.ts, in process on data of its own): the same.
  const localTime = await script(runLocalTimeBench)
  // A/B against plain (test/bench/ab-campaign.ts, its own server and data): the same.
  const abTest = await script(runAbBench)
  // /metrics on a large instance (test/bench/metrics.ts, its own server and data): the same.
  const metrics = await script(runMetricsBench)
  // CSV import (test/bench/audience.ts --import-only, its own server and data): the same.
  const csvImport = await script(runImportBench)
  const bare = best(bareRuns)
  const herald = best(heraldRuns)

  const ratio = herald.rps / bare.rps
  const pass = ratio >= RATIO_BAR
  const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits })
  const rounds = (runs: WrkResult[]) =>
    runs.length > 1 ? `, best of ${runs.length}: ${runs.map((r) => fmt(r.rps, 0)).join(' / ')}` : ''
  const summary = [
    '',
    `Herald benchmark: server pinned to core ${SERVER_CORE}, clients to core ${CLIENT_CORE}; ` +
      `wrk -t1 -c${CONNECTIONS} -d${opts.duration}s after a ${opts.warmup} s warm-up, ` +
      `${opts.rounds} interleaved round(s)`,
    '',
    '| Measure | Result |',
    '| --- | --- |',
    `| Bare Elysia \`GET /\` (wrk) | ${fmt(bare.rps, 0)} req/s (p99 ${fmt(bare.p99_ms, 2)} ms${rounds(bareRuns)}) |`,
    `| Herald \`GET /api/v1/clients/{id}\`, authenticated (wrk) | ` +
      `${fmt(herald.rps, 0)} req/s (p99 ${fmt(herald.p99_ms, 2)} ms${rounds(heraldRuns)}) |`,
    `| Herald / bare | ${fmt(ratio * 100)} % (bar >= ${RATIO_BAR * 100} %: ${pass ? 'met' : 'MISSED'}) |`,
    `| Latency at half max rate (${fmt(halfRate, 0)} req/s open loop, ${opts.openLoop} s) | ` +
      `p50 ${fmt(openLoop.p50_ms, 2)} ms, p99 ${fmt(openLoop.p99_ms, 2)} ms ` +
      `(${openLoop.ok}/${openLoop.sent} ok, ${openLoop.errors} errors) |`,
    `| Cold start to healthy \`/api/v1/health\` (n=${opts.coldStarts}) | ` +
      `median ${fmt(median(startMs))} ms, max ${fmt(Math.max(...startMs))} ms |`,
    `| Idle RSS after ${IDLE_MS / 1000} s | ` +
      `${fmt(median(idleRss))} MB (median), ${fmt(rssAfterLoad)} MB after the load run |`,
    ...(mcp ? mcpRows(mcp) : []),
    '',
    ...analytics.table,
    ...portal.table,
    ...smtp.table,
    ...profiles.table,
    ...feedback.table,
    ...signup.table,
    ...journeys.table,
    ...localTime.table,
    ...abTest.table,
    ...metrics.table,
    ...csvImport.table,
  ]
  if (openLoop.achieved_rps < 0.95 * halfRate)
    summary.push(
      `warning: the open-loop client only reached ${fmt(openLoop.achieved_rps, 0)} req/s ` +
        `(max send lag ${fmt(openLoop.max_send_lag_ms)} ms); its latencies include client saturation`,
    )
  console.log(summary.join('\n'))

  const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d
  console.log(
    JSON.stringify({
      wrk: {
        threads: 1,
        connections: CONNECTIONS,
        duration_s: opts.duration,
        warmup_s: opts.warmup,
        rounds: opts.rounds,
      },
      bare_rps: round(bare.rps, 0),
      bare_rps_rounds: bareRuns.map((r) => round(r.rps, 0)),
      bare_p99_ms: round(bare.p99_ms),
      herald_rps: round(herald.rps, 0),
      herald_rps_rounds: heraldRuns.map((r) => round(r.rps, 0)),
      herald_p99_ms: round(herald.p99_ms),
      ratio: round(ratio, 4),
      ratio_bar: RATIO_BAR,
      ratio_pass: pass,
      half_rate: {
        ...Object.fromEntries(Object.entries(openLoop).map(([k, v]) => [k, round(v)])),
        duration_s: opts.openLoop,
      },
      cold_start_ms: {
        n: opts.coldStarts,
        median: round(median(startMs), 1),
        max: round(Math.max(...startMs), 1),
        all: startMs.map((v) => round(v, 1)),
      },
      idle_rss_mb: { median: round(median(idleRss), 1), all: idleRss.map((v) => round(v, 1)) },
      rss_after_load_mb: round(rssAfterLoad, 1),
      mcp: mcp ?? 'skipped (--http-only)',
      analytics: analytics.json,
      portal: portal.json,
      smtp: smtp.json,
      profiles: profiles.json,
      feedback: feedback.json,
      forms: signup.json,
      journeys: journeys.json,
      local_time: localTime.json,
      ab_test: abTest.json,
      metrics: metrics.json,
      import: csvImport.json,
      total_s: round((performance.now() - runStarted) / 1000, 1),
    }),
  )
  return (
    pass &&
    (mcp === null || (mcp.tools_list_pass && mcp.ratio_pass)) &&
    analytics.pass &&
    journeys.pass &&
    localTime.pass &&
    abTest.pass &&
    metrics.pass &&
    csvImport.pass &&
    portal.pass &&
    smtp.pass &&
    profiles.pass &&
    feedback.pass &&
    signup.pass
  )
}

interface ScriptBench {
  table: string[]
  json: unknown
  pass: boolean
}

/**
 * Runs a bench script as its own process (its own servers and data): every line it prints but
 * the last is a table row, the last is its JSON line, and its exit code says whether its bars held.
 */
async function runBenchScript(
  name: string,
  script: string,
  args: string[],
  what: string,
): Promise<ScriptBench> {
  console.error(`${name}: ${what} (test/bench/${script})`)
  const child = track(
    Bun.spawn([process.execPath, join(import.meta.dir, script), ...args], {
      stdout: 'pipe',
      stderr: 'inherit',
    }),
  )
  const out = await new Response(child.stdout).text()
  const code = await child.exited
  const lines = out.trim().split('\n')
  try {
    return { table: lines.slice(0, -1), json: JSON.parse(lines.at(-1) ?? ''), pass: code === 0 }
  } catch {
    return { table: lines, json: { error: `${name} bench exited ${code}` }, pass: false }
  }
}

/**
 * The PostgreSQL bars: PostgreSQL against SQLite (HERALD_BENCH_STORE_ROWS, default 100,000;
 * HERALD_BENCH_STORE_ROUNDS, default 2): import, capture campaign and REST read, interleaved in one
 * run; then two processes on one database (HERALD_BENCH_MULTI_RECIPIENTS, default 50,000).
 */
async function runPostgresBenches(): Promise<boolean> {
  const rows = process.env.HERALD_BENCH_STORE_ROWS ?? '100000'
  const rounds = process.env.HERALD_BENCH_STORE_ROUNDS ?? '2'
  const r = await runBenchScript(
    'stores',
    'stores.ts',
    ['--rows', rows, '--rounds', rounds],
    `${rows} rows, PostgreSQL against SQLite`,
  )
  const recipients = process.env.HERALD_BENCH_MULTI_RECIPIENTS ?? '50000'
  const multi = await runBenchScript(
    'multi',
    'multi.ts',
    ['--recipients', recipients],
    `a ${recipients}-recipient campaign by one process and by two on one PostgreSQL; failover`,
  )
  for (const line of [...r.table, ...multi.table]) console.log(line)
  console.log(JSON.stringify({ stores: r.json, multi: multi.json }))
  return r.pass && multi.pass
}

/** The journey bars (HERALD_BENCH_JOURNEY_CONTACTS, default 100,000). */
function runJourneyBench(): Promise<ScriptBench> {
  const contacts = process.env.HERALD_BENCH_JOURNEY_CONTACTS ?? '100000'
  return runBenchScript('journeys', 'journeys.ts', ['--contacts', contacts], `${contacts} contacts`)
}

/** Local-time delivery over 24 zones (HERALD_BENCH_LOCAL_TIME_RECIPIENTS, default 100,000). */
function runLocalTimeBench(): Promise<ScriptBench> {
  const n = process.env.HERALD_BENCH_LOCAL_TIME_RECIPIENTS ?? '100000'
  return runBenchScript(
    'local-time',
    'local-time.ts',
    ['--recipients', n],
    `${n} recipients at 09:00 in 24 zones`,
  )
}

/** /metrics scrapes on a large instance (HERALD_BENCH_METRICS_CONTACTS, default 1,000,000). */
function runMetricsBench(): Promise<ScriptBench> {
  const n = process.env.HERALD_BENCH_METRICS_CONTACTS ?? '1000000'
  return runBenchScript('metrics', 'metrics.ts', ['--contacts', n], `/metrics with ${n} contacts`)
}

/** An A/B campaign against a plain one (HERALD_BENCH_AB_RECIPIENTS, default 100,000). */
function runAbBench(): Promise<ScriptBench> {
  const n = process.env.HERALD_BENCH_AB_RECIPIENTS ?? '100000'
  return runBenchScript('ab-test', 'ab-campaign.ts', ['--recipients', n], `${n}-recipient A/B campaign`)
}

/** A provider's bounce notification → suppression and webhook queued (HERALD_BENCH_FEEDBACK_NOTIFICATIONS, default 300). */
function runFeedbackBench(): Promise<ScriptBench> {
  const n = process.env.HERALD_BENCH_FEEDBACK_NOTIFICATIONS ?? '300'
  return runBenchScript(
    'feedback',
    'esp-feedback.ts',
    ['--notifications', n],
    `${n} Mailgun bounce notifications`,
  )
}

/** Public signup form posts against the contacts API (HERALD_BENCH_FORM_SUBMISSIONS, default 4,000). */
function runFormsBench(): Promise<ScriptBench> {
  const n = process.env.HERALD_BENCH_FORM_SUBMISSIONS ?? '4000'
  return runBenchScript('forms', 'forms.ts', ['--submissions', n], `${n} signup form submissions`)
}

/** The CSV import bars (HERALD_BENCH_IMPORT_ROWS, default 1,000,000). */
function runImportBench(): Promise<ScriptBench> {
  const rows = process.env.HERALD_BENCH_IMPORT_ROWS ?? '1000000'
  return runBenchScript('import', 'audience.ts', ['--import-only', '--rows', rows], `${rows} CSV rows`)
}

/** SMTP + DKIM against a raw nodemailer blast (HERALD_BENCH_SMTP_RECIPIENTS, default 5,000). */
function runSmtpBench(): Promise<ScriptBench> {
  const recipients = process.env.HERALD_BENCH_SMTP_RECIPIENTS ?? '5000'
  return runBenchScript(
    'smtp',
    'campaign-smtp.ts',
    ['--recipients', recipients],
    `a ${recipients}-recipient DKIM campaign against a raw nodemailer blast`,
  )
}

/** Two sending profiles at once ≥ 0.9 × one (HERALD_BENCH_PROFILE_RECIPIENTS, default 4,000). */
function runProfilesBench(): Promise<ScriptBench> {
  const recipients = process.env.HERALD_BENCH_PROFILE_RECIPIENTS ?? '4000'
  return runBenchScript(
    'profiles',
    'profiles-smtp.ts',
    ['--recipients', recipients],
    `${recipients} DKIM messages through one sending profile, then two at once`,
  )
}

/** The portal's render and transfer bars (HERALD_BENCH_PORTAL_CONTACTS, default 1,000,000). */
function runPortalBench(): Promise<ScriptBench> {
  const contacts = process.env.HERALD_BENCH_PORTAL_CONTACTS ?? '1000000'
  return runBenchScript('portal', 'portal.ts', ['--contacts', contacts], `${contacts} contacts`)
}

/** The analytics bars (HERALD_BENCH_ANALYTICS_EVENTS, default 10,000,000). */
function runAnalyticsBench(): Promise<ScriptBench> {
  const events = process.env.HERALD_BENCH_ANALYTICS_EVENTS ?? '10000000'
  return runBenchScript('analytics', 'analytics.ts', ['--events', events], `${events} events`)
}

runBench(main, { cleanup, sigtermExitCode: 143 })
