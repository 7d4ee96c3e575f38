import { deliveryProblem } from './ssrf'

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
}

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

/** One POST to the endpoint: SSRF check after DNS, no redirects followed, bounded time and body. */
export async function attemptDelivery(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: AttemptOptions,
): Promise<AttemptResult> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const refused = await deliveryProblem(url, options.allowPrivate)
  if (refused) return { status: null, durationMs: elapsed(), excerpt: null, error: `refused: ${refused}` }
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), options.timeoutMs)
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: controller.signal,
    })
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
