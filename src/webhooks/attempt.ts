import { checkTarget, type HostResolver, hostResolver, type Target } from './ssrf'

export const EXCERPT_LIMIT = 64 * 1024

export interface AttemptResult {
  /** HTTP status, or null when no response came back (refused, timeout, connection error). */
  status: number | null
  durationMs: number
  excerpt: string | null
  error: string | null
}

export interface AttemptOptions {
  allowPrivate: boolean
  timeoutMs: number
  /** How host names are looked up (HERALD_DNS_SERVERS); the system resolver by default. */
  resolve?: HostResolver
  /** POST (the body) by default; a GET sends no body (an SNS subscription's confirmation link). */
  method?: 'GET' | 'POST'
}

/**
 * The request for one approved address: the URL with that address in place of the name, the
 * name kept in the Host header and as the TLS server name (SNI, and the name the certificate
 * must match). Fetching this URL involves no look-up, so nothing can answer differently.
 */
export function pinnedRequest(target: Target, address: string) {
  const url = new URL(target.url)
  url.hash = ''
  url.hostname = address.includes(':') ? `[${address}]` : address
  return {
    url: url.href,
    host: target.url.port ? `${target.host}:${target.url.port}` : target.host,
    serverName: target.host,
  }
}

/** Errors that mean the connection was never made: the next approved address may be tried. */
const UNREACHED = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'ConnectionRefused',
])

/** Reads at most `limit` bytes of the body, then cancels the stream: never buffers it whole. */
async function readExcerpt(res: Response, limit: number): Promise<string> {
  if (!res.body) return ''
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    while (size < limit) {
      const { done, value } = await reader.read()
      if (done) break
      const room = limit - size
      chunks.push(value.length > room ? value.subarray(0, room) : value)
      size += Math.min(value.length, room)
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
  return new TextDecoder().decode(Buffer.concat(chunks))
}

/**
 * One POST (or GET) to the endpoint: SSRF check after DNS, then a connection to an address that check
 * approved (tried in order while a connection cannot be made), no redirects followed, bounded
 * time and body.
 */
export async function attemptDelivery(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: AttemptOptions,
): Promise<AttemptResult> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const checked = await checkTarget(url, options.allowPrivate, options.resolve ?? hostResolver([]))
  if ('problem' in checked)
    return { status: null, durationMs: elapsed(), excerpt: null, error: `refused: ${checked.problem}` }
  const { target } = checked
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), options.timeoutMs)
  const post = (href: string, extra: Record<string, string>, tls?: { serverName: string }) =>
    fetch(href, {
      method: options.method ?? 'POST',
      headers: { ...headers, ...extra },
      ...(options.method === 'GET' ? {} : { body }),
      redirect: 'manual',
      signal: controller.signal,
      ...(tls ? { tls } : {}),
    })
  try {
    let res: Response | undefined
    if (target.addresses.length === 0) res = await post(target.url.href, {})
    for (const [i, address] of target.addresses.entries()) {
      const pinned = pinnedRequest(target, address)
      const tls = target.url.protocol === 'https:' ? { serverName: pinned.serverName } : undefined
      try {
        res = await post(pinned.url, { host: pinned.host }, tls)
        break
      } catch (err) {
        const code = String((err as NodeJS.ErrnoException).code ?? '')
        if (controller.signal.aborted || !UNREACHED.has(code) || i === target.addresses.length - 1) throw err
      }
    }
    if (!res) throw new Error('no address to connect to')
    const excerpt = await readExcerpt(res, EXCERPT_LIMIT)
    return { status: res.status, durationMs: elapsed(), excerpt, error: null }
  } catch (err) {
    const timedOut = controller.signal.aborted
    return {
      status: null,
      durationMs: elapsed(),
      excerpt: null,
      error: timedOut ? `timed out after ${options.timeoutMs} ms` : String((err as Error).message ?? err),
    }
  } finally {
    clearTimeout(timer)
  }
}
