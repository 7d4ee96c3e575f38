import { ConfigError, loadConfig } from '../../config'
import { VERSION } from '../../version'
import { detailsBeyond } from '../refusal'
import { UsageError } from '../usage'
import type { Invocation, Stdin } from './args'

// The HTTP side of `herald api`: where the server is, which key, one request, and how its
// answer is printed. Exit codes: 0 a 2xx, 1 an API error (the error body on stderr as
// `herald: CODE: message` and its details), 3 the server could not be reached.

export interface Io {
  out(text: string): void
  err(text: string): void
  /** Resolves once what was written to stdout has left the process (a pipe may lag behind). */
  flush(): Promise<void>
  isTTY: boolean
  env: Record<string, string | undefined>
  stdin: Stdin
  /** Waits (a 429's Retry-After); tests pass one that moves their clock instead. */
  sleep(ms: number): Promise<void>
}

export class ConnectionError extends Error {}

/** --url, else HERALD_URL, else the loopback address on the port `herald serve` would take. */
export function baseUrl(flag: string | null, env: Io['env']): string {
  let raw = flag ?? env.HERALD_URL
  if (!raw) {
    try {
      // The same default and HERALD_PORT check as the server's configuration.
      raw = `http://127.0.0.1:${loadConfig({}, { HERALD_PORT: env.HERALD_PORT }).port}`
    } catch (err) {
      if (err instanceof ConfigError) throw new UsageError(err.message)
      throw err
    }
  }
  const source = flag ? '--url' : 'HERALD_URL'
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new UsageError(`${source} is not a URL: ${raw}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${source} must be an http:// or https:// URL, got ${raw}`)
  return url.href.replace(/\/+$/, '')
}

/** The key from --key-file, else HERALD_API_KEY (never a flag: it would land in shell history). */
export async function apiKey(keyFile: string | null, env: Io['env']): Promise<string | null> {
  if (keyFile === null) return env.HERALD_API_KEY?.trim() || null
  const file = Bun.file(keyFile)
  if (!(await file.exists())) throw new UsageError(`--key-file: no such file: ${keyFile}`)
  const key = (await file.text()).trim()
  if (!key) throw new UsageError(`--key-file: ${keyFile} is empty`)
  return key
}

async function send(inv: Invocation, base: string, key: string | null): Promise<Response> {
  const o = inv.command.operation
  const headers: Record<string, string> = {
    accept: o.mediaType ? `${o.mediaType}, application/json` : 'application/json',
    'user-agent': `herald-cli/${VERSION}`,
  }
  if (key) headers.authorization = `Bearer ${key}`
  if (inv.idempotencyKey !== null) headers['idempotency-key'] = inv.idempotencyKey
  let body: BodyInit | undefined
  if (inv.body?.kind === 'json') {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(inv.body.value)
  } else if (inv.body?.kind === 'raw') {
    headers['content-type'] = inv.body.contentType
    body = inv.body.bytes as Uint8Array<ArrayBuffer>
  }
  const search = inv.query.size > 0 ? `?${inv.query}` : ''
  try {
    return await fetch(`${base}${inv.path}${search}`, { method: o.method, headers, body, redirect: 'manual' })
  } catch (err) {
    const reason = (err as { code?: string }).code ?? (err as Error).message
    throw new ConnectionError(
      `cannot reach Herald at ${base} (${reason}). Is the server running (herald serve)? ` +
        'Point at it with --url or HERALD_URL.',
    )
  }
}

const isJson = (r: Response) => /^application\/([\w.+-]*\+)?json\b/.test(r.headers.get('content-type') ?? '')

function format(value: unknown, inv: Invocation, io: Io): string {
  return `${io.isTTY && !inv.json ? JSON.stringify(value, null, 2) : JSON.stringify(value)}\n`
}

interface ErrorBody {
  code?: string
  message?: string
  details?: unknown
  request_id?: string
}

/** The §4 error body as `herald: CODE: message`, one line per detail, and the request id. */
async function printError(r: Response, inv: Invocation, key: string | null, io: Io): Promise<void> {
  const text = await r.text()
  let error: ErrorBody | null = null
  try {
    error = (JSON.parse(text) as { error?: ErrorBody }).error ?? null
  } catch {}
  if (!error?.code) {
    io.err(`herald: HTTP ${r.status}: ${text.slice(0, 500) || r.statusText}\n`)
    return
  }
  const lines = [`herald: ${error.code}: ${error.message ?? ''}`]
  if (Array.isArray(error.details))
    for (const d of detailsBeyond(error.message ?? '', error.details) as {
      field?: string
      message?: string
    }[])
      lines.push(d.field !== undefined ? `  ${d.field}: ${d.message ?? ''}` : `  ${JSON.stringify(d)}`)
  else if (error.details && typeof error.details === 'object')
    for (const [k, v] of Object.entries(error.details)) lines.push(`  ${k}: ${JSON.stringify(v)}`)
  // A platform-wide key's create without a workspace: name the flag that gives one.
  const fields = Array.isArray(error.details)
    ? (error.details as { field?: string }[]).map((d) => d.field)
    : []
  if (fields.includes('client_id') && inv.command.members.has('client_id') && !inv.query.has('client_id'))
    lines.push('  give the workspace with --client ID')
  const retryAfter = r.headers.get('retry-after')
  if (retryAfter) lines.push(`  retry after: ${retryAfter} s`)
  if (r.status === 401 && !key) lines.push('  no API key given: set HERALD_API_KEY (or pass --key-file FILE)')
  if (error.request_id) lines.push(`  request_id: ${error.request_id}`)
  io.err(`${lines.join('\n')}\n`)
}

/** 429s in a row for one page of --all before it gives up (the last one printed, exit 1). */
export const RATE_RETRIES = 5
/** A longer wait than this is not taken: the 429 is printed at once instead. */
export const MAX_RATE_WAIT_MS = 120_000

/**
 * How long a 429 asks to wait: Retry-After (seconds, or an HTTP date), else RateLimit-Reset
 * (seconds), else 1 s doubling with each retry. Never less than a second: a server saying 0
 * would otherwise be asked again at once.
 */
export function rateLimitWait(headers: Headers, retry: number, now: number): number {
  const seconds = (v: string | null) => (v !== null && /^\s*\d+\s*$/.test(v) ? Number(v) * 1000 : null)
  const after = headers.get('retry-after')
  let ms = seconds(after)
  if (ms === null && after !== null && !Number.isNaN(Date.parse(after))) ms = Date.parse(after) - now
  ms ??= seconds(headers.get('ratelimit-reset'))
  ms ??= 1000 * 2 ** retry
  return Math.max(1000, ms)
}

interface Page {
  data?: unknown[]
  pagination?: { next_cursor?: string | null }
}

/** Makes the request (every page of it with --all) and prints the answer; returns the exit code. */
export async function runInvocation(
  inv: Invocation,
  base: string,
  key: string | null,
  io: Io,
): Promise<number> {
  if (!inv.all) {
    const r = await send(inv, base, key)
    if (!r.ok) {
      await printError(r, inv, key, io)
      return 1
    }
    if (!isJson(r))
      io.out(await r.text()) // a download (CSV) as it came
    else {
      const body = (await r.json()) as Page
      if (inv.jsonl) for (const item of body.data ?? []) io.out(`${JSON.stringify(item)}\n`)
      else io.out(format(body, inv, io))
    }
    return 0
  }
  const items: unknown[] = []
  const seen = new Set<string>()
  let pageNo = 1
  let retries = 0
  for (;;) {
    const r = await send(inv, base, key)
    // A 429 midway would lose the pages read so far: wait as the server asks and ask again (the
    // limiter refuses before the request is handled, so asking again is safe), a few times.
    if (r.status === 429 && retries < RATE_RETRIES) {
      const wait = rateLimitWait(r.headers, retries, Date.now())
      if (wait <= MAX_RATE_WAIT_MS) {
        retries++
        await r.body?.cancel()
        io.err(
          `herald: rate limited (429) on page ${pageNo}; waiting ${Math.ceil(wait / 1000)} s (retry ${retries} of ${RATE_RETRIES})\n`,
        )
        await io.sleep(wait)
        continue
      }
    }
    retries = 0
    if (!r.ok) {
      await printError(r, inv, key, io)
      return 1
    }
    const page = (await r.json()) as Page
    if (inv.jsonl) for (const item of page.data ?? []) io.out(`${JSON.stringify(item)}\n`)
    else items.push(...(page.data ?? []))
    const next = page.pagination?.next_cursor
    if (!next) break
    if (seen.has(next)) throw new Error(`the server gave cursor ${next} twice; stopped paging`)
    seen.add(next)
    pageNo++
    if (inv.command.paginated === 'body' && inv.body?.kind === 'json') inv.body.value.cursor = next
    else inv.query.set('cursor', next)
  }
  if (!inv.jsonl) io.out(format(items, inv, io))
  return 0
}
