// Shared pieces of the benchmark scripts: the compiled binary (built when stale), starting and
// stopping it on a free loopback port, API calls, /proc memory readings and child bookkeeping.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'

export const ROOT = join(import.meta.dir, '..', '..')
export const HERALD = join(ROOT, 'dist', 'herald')
export const HOST = '127.0.0.1'

export class BenchError extends Error {}

const children = new Set<Subprocess>()
export const track = <T extends Subprocess>(p: T): T => {
  children.add(p)
  void p.exited.then(() => children.delete(p))
  return p
}
export function killChildren(): void {
  for (const c of children) c.kill('SIGKILL')
}

export const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`)

export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: HOST, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

/** Builds dist/herald when it is missing or older than a source file. */
export async function ensureBinary(): Promise<void> {
  let reason = existsSync(HERALD) ? null : 'missing'
  if (!reason) {
    const built = statSync(HERALD).mtimeMs
    const newer = ['src', 'migrations'].flatMap((dir) =>
      readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }).filter((f) => {
        const st = statSync(join(ROOT, dir, f))
        return st.isFile() && st.mtimeMs > built
      }),
    )
    if (newer.length) reason = `older than ${newer.length} source file(s)`
  }
  if (!reason) return
  progress(`dist/herald is ${reason}: building it (bun run build)`)
  const build = track(
    Bun.spawn([process.execPath, 'run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] }),
  )
  if ((await build.exited) !== 0) throw new BenchError('bun run build failed')
}

export interface Herald {
  proc: Subprocess
  base: string
  key: string
}

/** `herald serve` on a free port with a known admin key; resolves once /api/v1/health answers. */
export async function startHerald(
  dataDir: string,
  key: string,
  env: Record<string, string> = {},
  cpus?: string,
): Promise<Herald> {
  const port = freePort()
  const cmd = [HERALD, 'serve', '--port', String(port), '--host', HOST, '--data', dataDir]
  const proc = track(
    Bun.spawn(cpus ? ['taskset', '-c', cpus, ...cmd] : cmd, {
      cwd: ROOT,
      env: { ...process.env, HERALD_LOG: 'json', HERALD_BOOTSTRAP_API_KEY: key, ...env },
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: 'pipe',
    }),
  )
  const base = `http://${HOST}:${port}`
  const deadline = performance.now() + 30_000
  while (performance.now() < deadline) {
    if (proc.exitCode !== null)
      throw new BenchError(
        `herald exited at start: ${await new Response(proc.stderr as ReadableStream).text()}`,
      )
    try {
      if ((await fetch(`${base}/api/v1/health`)).ok) return { proc, base, key }
    } catch {
      // not listening yet
    }
    await Bun.sleep(20)
  }
  throw new BenchError('herald did not answer /api/v1/health within 30 s')
}

export async function stopHerald(h: Herald): Promise<void> {
  if (h.proc.exitCode !== null) return
  h.proc.kill('SIGTERM')
  const stopped = await Promise.race([h.proc.exited.then(() => true), Bun.sleep(30_000).then(() => false)])
  if (!stopped) {
    h.proc.kill('SIGKILL')
    throw new BenchError('herald did not stop on SIGTERM (killed)')
  }
}

/** One API call; non-2xx fails the bench. `ms` covers the whole exchange. */
export async function api<T = { data: Record<string, unknown> }>(
  h: Herald,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ body: T; ms: number }> {
  const t0 = performance.now()
  const res = await fetch(`${h.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${h.key}`, 'content-type': contentType },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await res.text()
  const ms = performance.now() - t0
  if (!res.ok) throw new BenchError(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`)
  return { body: JSON.parse(text) as T, ms }
}

/** Resident memory (VmRSS) or its peak (VmHWM) of a process, in MB. */
export function procStatusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (!m) throw new BenchError(`no ${field} for pid ${pid}`)
  return Number(m[1]) / 1024
}

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits })

/** Runs main, kills every child on the way out, exits 1 on a BenchError or a missed bar. */
export function runBench(main: () => Promise<boolean>): void {
  const bail = () => {
    killChildren()
    process.exit(130)
  }
  process.on('SIGINT', bail)
  process.on('SIGTERM', bail)
  main()
    .then((ok) => {
      killChildren()
      process.exit(ok ? 0 : 1)
    })
    .catch((err) => {
      killChildren()
      process.stderr.write(
        `[bench] failed: ${err instanceof BenchError ? err.message : (err as Error).stack}\n`,
      )
      process.exit(1)
    })
}
