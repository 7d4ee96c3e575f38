import type { Flags } from '../config'
import { loadConfig } from '../config'

// `herald healthcheck`: the container's HEALTHCHECK, which has no curl in the image. It asks the
// server on this machine for /healthz (same HERALD_PORT/HERALD_HOST as `serve`) and exits 0 on a
// 200, 1 otherwise, with one line saying why.

const TIMEOUT_MS = 3_000

/** Where a local client reaches a server listening on `host`: a wildcard is reached on loopback. */
export function healthUrl(host: string, port: number): string {
  const target =
    host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host
  return `http://${target}:${port}/healthz`
}

export async function healthcheck(flags: Flags): Promise<number> {
  const config = loadConfig(flags)
  const url = healthUrl(config.host, config.port)
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' })
    await res.body?.cancel()
    if (res.status === 200) {
      console.log(`ok: ${url} answered 200`)
      return 0
    }
    process.stderr.write(`herald: ${url} answered ${res.status}\n`)
    return 1
  } catch (err) {
    process.stderr.write(`herald: ${url} did not answer: ${(err as Error).message}\n`)
    return 1
  }
}
