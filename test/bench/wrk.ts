import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BenchError } from './lib'

// wrk, the HTTP load generator of the throughput bars: one thread, 50 connections, and a Lua
// report that prints the figures as one JSON line.

export const CONNECTIONS = 50

const REPORT_LUA = `done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"connect_errors":%d,"read_errors":%d,"write_errors":%d,' ..
    '"status_errors":%d,"timeouts":%d,"p50_us":%d,"p99_us":%d}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`

export interface WrkResult {
  rps: number
  requests: number
  p50_ms: number
  p99_ms: number
  errors: number
}

let reportFile: string | null = null
const report = () => {
  if (!reportFile) {
    reportFile = join(mkdtempSync(join(tmpdir(), 'herald-wrk-')), 'report.lua')
    writeFileSync(reportFile, REPORT_LUA)
  }
  return reportFile
}

/** Runs wrk against `url` for `seconds` through `run` (which pins it to the client core). */
export async function wrk(
  url: string,
  seconds: number,
  headers: string[],
  run: (cmd: string[], timeoutMs: number) => Promise<string>,
): Promise<WrkResult> {
  const args = ['wrk', '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '-s', report()]
  for (const h of headers) args.push('-H', h)
  const out = await run([...args, url], (seconds + 30) * 1000)
  const line = out
    .trim()
    .split('\n')
    .findLast((l) => l.startsWith('{'))
  if (!line) throw new BenchError(`no report from wrk:\n${out}`)
  const r = JSON.parse(line) as Record<string, number>
  const errors =
    r['connect_errors']! + r['read_errors']! + r['write_errors']! + r['status_errors']! + r['timeouts']!
  return {
    rps: r['requests']! / (r['duration_us']! / 1e6),
    requests: r['requests']!,
    p50_ms: r['p50_us']! / 1000,
    p99_ms: r['p99_us']! / 1000,
    errors,
  }
}

export const best = (runs: WrkResult[]): WrkResult => runs.reduce((a, b) => (b.rps > a.rps ? b : a))
