import { afterAll } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { freePort } from './ports'

// A real Prometheus server (Debian's `prometheus` package, installed through apt when missing and
// this process is root, as chromium-install.ts does for the browser), scraping the given targets
// every second. Everything it writes stays in a temp dir; it is killed after the file's tests.

const BINARY = '/usr/bin/prometheus'

/** Installs the package when the executable is missing; throws with the command otherwise. */
export function ensurePrometheus(): string {
  if (Bun.which(BINARY)) return BINARY
  if (process.getuid?.() !== 0)
    throw new Error(`no ${BINARY} for the Prometheus test: run sudo apt-get install prometheus`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const install = () =>
    Bun.spawnSync(['apt-get', 'install', '-y', '--no-install-recommends', 'prometheus'], { env })
  // A fresh machine has no package lists yet: update once and try again.
  if (install().exitCode !== 0) {
    Bun.spawnSync(['apt-get', 'update'], { env })
    const again = install()
    if (again.exitCode !== 0) throw new Error(`apt-get install prometheus failed: ${again.stderr.toString()}`)
  }
  return BINARY
}

export interface PrometheusServer {
  base: string
  /** The instant vector of a PromQL query: each series' labels and value. */
  query(promql: string): Promise<{ metric: Record<string, string>; value: number }[]>
}

/** Starts Prometheus scraping `targets` (host:port, path /metrics) every second. */
export async function startPrometheus(targets: string[]): Promise<PrometheusServer> {
  const binary = ensurePrometheus()
  const dir = mkdtempSync(join(tmpdir(), 'herald-prometheus-'))
  const config = join(dir, 'prometheus.yml')
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      'scrape_configs:',
      '  - job_name: herald',
      '    static_configs:',
      `      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]`,
    ].join('\n'),
  )
  const port = freePort()
  const proc: Subprocess = Bun.spawn(
    [
      binary,
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--web.enable-lifecycle',
    ],
    { cwd: dir, stdout: 'ignore', stderr: 'ignore' },
  )
  afterAll(async () => {
    proc.kill('SIGKILL')
    await proc.exited
    rmSync(dir, { recursive: true, force: true })
  })
  const base = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 20_000
  for (;;) {
    try {
      if ((await fetch(`${base}/-/ready`)).ok) break
    } catch {}
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error('prometheus did not become ready')
    await Bun.sleep(100)
  }
  return {
    base,
    async query(promql) {
      const res = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(promql)}`)
      const body = (await res.json()) as {
        status: string
        error?: string
        data: { result: { metric: Record<string, string>; value: [number, string] }[] }
      }
      if (body.status !== 'success') throw new Error(`query ${promql}: ${body.error}`)
      return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }))
    },
  }
}
