// Shared pieces of the benchmark scripts: the compiled binary (built when stale) and its CLI,
// starting and stopping it (or any other server) on a free loopback port, API calls, /proc memory
// readings, child bookkeeping and the run-and-exit wrapper.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'

export const ROOT = join(import.meta.dir, '..', '..')
export const HERALD = join(ROOT, 'dist', 'herald')
export const HOST = '127.0.0.1'

export class BenchError extends Error {}

// ---------------------------------------------------------------------------------------------
// Children: every process started here is tracked and killed on the way out (see runBench).

const children = new Set<Subprocess>()
export const track = <T extends Subprocess>(p: T): T => {
  children.add(p)
  void p.exited.then(() => children.delete(p))
  return p
}
const exited = (p: Subprocess) => p.exitCode !== null || p.signalCode !== null
export function killChildren(): void {
  for (const c of children) if (!exited(c)) c.kill('SIGKILL')
}

export const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`)

export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: HOST, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

const pinned = (cmd: string[], cpus?: string) => (cpus ? ['taskset', '-c', cpus, ...cmd] : cmd)

// ---------------------------------------------------------------------------------------------
// The binary and one-shot commands.

export interface EnsureOptions {
  /** Where the "building it" (or "warning") line goes; default `progress`. */
  log?: (message: string) => void
  /** dist/herald older than a source file: build it again (default) or only warn. Missing: built. */
  stale?: 'rebuild' | 'warn'
}

/** Builds dist/herald when it is missing or (unless `stale: 'warn'`) older than a source file. */
export async function ensureBinary({ log = progress, stale = 'rebuild' }: EnsureOptions = {}): Promise<void> {
  let reason = existsSync(HERALD) ? null : 'missing'
  if (!reason) {
    const built = statSync(HERALD).mtimeMs
    const newer = ['src', 'migrations'].flatMap((dir) =>
      readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }).filter((f) => {
        const st = statSync(join(ROOT, dir, f))
        return st.isFile() && st.mtimeMs > built
      }),
    )
    if (!newer.length) return
    reason = `older than ${newer.length} source file(s)`
    if (stale === 'warn') {
      log(`warning: dist/herald is ${reason}; run \`bun run build\` first`)
      return
    }
  }
  log(`dist/herald is ${reason}: building it (bun run build)`)
  const build = track(
    Bun.spawn([process.execPath, 'run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] }),
  )
  if ((await build.exited) !== 0) throw new BenchError('bun run build failed')
}

export interface CommandOptions {
  /** SIGKILL it after this long (no limit when undefined). */
  timeoutMs?: number
  /** Pin it to these CPUs (taskset -c). */
  cpus?: string
  /** Added to the environment. */
  env?: Record<string, string>
}

/** Runs `cmd` to completion and returns its stdout; a non-zero exit fails the bench. */
export async function runCommand(
  cmd: string[],
  { timeoutMs, cpus, env = {} }: CommandOptions = {},
): Promise<string> {
  const proc = track(
    Bun.spawn(pinned(cmd, cpus), {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    }),
  )
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  clearTimeout(timer)
  if (code !== 0) {
    const name = [cmd[0] === HERALD ? 'herald' : cmd[0], ...cmd.slice(1)].join(' ')
    throw new BenchError(`${name} exited with ${code}\n${err.trim()}${out.trim() ? `\n${out.trim()}` : ''}`)
  }
  return out
}

/** An offline `herald …` command (migrate, keys): its stdout. */
export const heraldCli = (args: string[], env: Record<string, string> = {}) =>
  runCommand([HERALD, ...args], { timeoutMs: 60_000, env })

/**
 * A platform-wide admin:* key of tier unlimited (no rate limit caps a run), made offline; `env`
 * names the store when it is not the data dir's SQLite file.
 */
export async function unlimitedKey(dataDir: string, env: Record<string, string> = {}): Promise<string> {
  const args = ['keys', 'create', '--name', 'bench', '--scopes', 'admin:*', '--tier', 'unlimited']
  const out = await heraldCli([...args, '--json', '--data', dataDir], env)
  return (JSON.parse(out) as { key: string }).key
}

// ---------------------------------------------------------------------------------------------
// Servers: dist/herald or any other (the bare baseline of run.ts).

export interface Spawned {
  proc: Subprocess
  /** Where its stderr goes; piped when undefined. */
  stderrFile?: string
}

export interface SpawnOptions {
  /** Added to the environment. */
  env?: Record<string, string>
  /** Pin it to these CPUs (taskset -c). */
  cpus?: string
  /** Keep stderr in this file (its tail goes into error messages) rather than a pipe. */
  stderrFile?: string
}

/** Starts a long-running server: stdin closed, stdout discarded. */
export function spawnServer(cmd: string[], { env = {}, cpus, stderrFile }: SpawnOptions = {}): Spawned {
  const proc = track(
    Bun.spawn(pinned(cmd, cpus), {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: stderrFile ? Bun.file(stderrFile) : 'pipe',
    }),
  )
  return { proc, stderrFile }
}

/** The last lines of a server's stderr, for error messages (empty for a piped one still running). */
export async function stderrTail(s: Spawned, lines = 15): Promise<string> {
  let text = ''
  try {
    if (s.stderrFile) text = readFileSync(s.stderrFile, 'utf8')
    else if (exited(s.proc) && s.proc.stderr instanceof ReadableStream)
      text = await new Response(s.proc.stderr).text()
  } catch {
    // nothing written
  }
  return text.trim().split('\n').slice(-lines).join('\n')
}

export interface ReadyOptions {
  /** performance.now() the wait counts from (default: now); the deadline too. */
  since?: number
  /** Default 30 s. */
  timeoutMs?: number
  /** Default 20 ms. */
  pollMs?: number
}

/** Polls `url` (fresh connections) until it answers 200; returns the ms since `since`. */
export async function waitReady(
  s: Spawned,
  url: string,
  { since = performance.now(), timeoutMs = 30_000, pollMs = 20 }: ReadyOptions = {},
): Promise<number> {
  const deadline = since + timeoutMs
  while (performance.now() < deadline) {
    if (exited(s.proc)) throw new BenchError(`server exited before answering ${url}\n${await stderrTail(s)}`)
    try {
      const res = await fetch(url, { keepalive: false, signal: AbortSignal.timeout(2_000) })
      await res.arrayBuffer()
      if (res.status === 200) return performance.now() - since
    } catch {
      // not listening yet
    }
    await Bun.sleep(pollMs)
  }
  throw new BenchError(`no 200 from ${url} within ${timeoutMs} ms\n${await stderrTail(s)}`)
}

export interface StopOptions {
  /** How long SIGTERM gets before SIGKILL; default 30 s. */
  timeoutMs?: number
  /** Fail the bench when SIGTERM was not enough (default true); false: just SIGKILL it. */
  strict?: boolean
}

export async function stopServer(
  s: { proc: Subprocess },
  { timeoutMs = 30_000, strict = true }: StopOptions = {},
): Promise<void> {
  const { proc } = s
  if (exited(proc)) return
  proc.kill('SIGTERM')
  let timer: ReturnType<typeof setTimeout> | undefined
  const stopped = await Promise.race([
    proc.exited.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs)
    }),
  ])
  clearTimeout(timer) // a pending timer would hold the process open after main
  if (stopped) return
  proc.kill('SIGKILL')
  await proc.exited
  if (strict) throw new BenchError('the server did not stop on SIGTERM (killed)')
}

export interface Herald extends Spawned {
  base: string
  /** The key api() sends. */
  key: string
  /** ms from spawning it to the first 200 from /api/v1/health (cold start). */
  readyMs: number
  /** Limit on each api() call (none when undefined). */
  requestTimeoutMs?: number
}

export interface HeraldOptions extends Omit<SpawnOptions, 'env'>, Omit<ReadyOptions, 'since'> {
  /**
   * Pass `key` as HERALD_BOOTSTRAP_API_KEY, the admin key a first start makes (default true).
   * false when the key was made beforehand (`unlimitedKey`), or with key '' for a generated one.
   */
  bootstrap?: boolean
  requestTimeoutMs?: number
}

/** `herald serve` on a free port; resolves once /api/v1/health answers 200. */
export async function startHerald(
  dataDir: string,
  key: string,
  env: Record<string, string> = {},
  { bootstrap = true, requestTimeoutMs, timeoutMs, pollMs, ...spawn }: HeraldOptions = {},
): Promise<Herald> {
  const port = freePort()
  const since = performance.now()
  const s = spawnServer([HERALD, 'serve', '--port', String(port), '--host', HOST, '--data', dataDir], {
    ...spawn,
    env: { HERALD_LOG: 'json', ...(bootstrap ? { HERALD_BOOTSTRAP_API_KEY: key } : {}), ...env },
  })
  const base = `http://${HOST}:${port}`
  const readyMs = await waitReady(s, `${base}/api/v1/health`, { since, timeoutMs, pollMs })
  return { ...s, base, key, readyMs, requestTimeoutMs }
}

export const stopHerald: (h: Herald, opts?: StopOptions) => Promise<void> = stopServer

/** One API call; non-2xx fails the bench. `ms` covers sending it and reading the whole answer. */
export async function api<T = { data: Record<string, unknown> }>(
  h: Herald,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: T; ms: number }> {
  const headers: Record<string, string> = { authorization: `Bearer ${h.key}` }
  if (body !== undefined) headers['content-type'] = contentType
  const t0 = performance.now()
  const res = await fetch(`${h.base}${path}`, {
    method,
    headers,
    body:
      body === undefined
        ? undefined
        : typeof body === 'string' || body instanceof Blob
          ? body
          : JSON.stringify(body),
    signal: h.requestTimeoutMs === undefined ? undefined : AbortSignal.timeout(h.requestTimeoutMs),
  })
  const text = await res.text()
  const ms = performance.now() - t0
  if (!res.ok) throw new BenchError(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`)
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T, ms }
}

/** Resident memory (VmRSS) or its peak (VmHWM) of a process, in MB. */
export function procStatusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (!m) throw new BenchError(`no ${field} for pid ${pid}`)
  return Number(m[1]) / 1024
}

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits })

// ---------------------------------------------------------------------------------------------

export interface RunOptions {
  /** Also run on every way out, after the children are killed: temp dirs, listeners, handles. */
  cleanup?: () => void
  /** Exit code when main throws; default 1. */
  errorExitCode?: number
  /** Exit code on SIGTERM; default 130, as on SIGINT. */
  sigtermExitCode?: number
}

/** Runs main, kills every child on the way out, exits 1 on a missed bar (main false) or an error. */
export function runBench(
  main: () => Promise<boolean>,
  { cleanup, errorExitCode = 1, sigtermExitCode = 130 }: RunOptions = {},
): void {
  let finished = false
  const finish = () => {
    if (finished) return
    finished = true
    killChildren()
    cleanup?.()
  }
  process.on('exit', finish)
  const bail = (code: number) => () => {
    finish()
    process.exit(code)
  }
  process.on('SIGINT', bail(130))
  process.on('SIGTERM', bail(sigtermExitCode))
  main()
    .then((ok) => {
      finish()
      process.exit(ok ? 0 : 1)
    })
    .catch((err) => {
      finish()
      process.stderr.write(
        `[bench] failed: ${err instanceof BenchError ? err.message : (err as Error).stack}\n`,
      )
      process.exit(errorExitCode)
    })
}
