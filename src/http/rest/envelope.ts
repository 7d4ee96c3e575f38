import type { AccessLine, Logger } from '../../lib/log'
import type { Metrics } from '../../services/metrics/registry'
import { requestIdFor } from '../middleware/request-id'
import { loggedPath } from './logged-path'
import type { RequestMeta } from './pipeline'
import { errorResponse } from './respond'

// What every answer gets, whichever door it came through (API operations, tracking links,
// provider callbacks, unknown routes): the request id, thrown errors mapped to the
// error body, and one access-log line.

/** The access log: one line per request, never the credential, a body, the query or a link's token. */
export function logRequest(log: Logger, request: Request, meta: RequestMeta, started: number): void {
  const url = request.url
  const pathStart = url.indexOf('/', url.indexOf('//') + 2)
  const q = url.indexOf('?', pathStart)
  const line: AccessLine = {
    method: request.method,
    path: loggedPath(url.slice(pathStart, q === -1 ? undefined : q)),
    status: meta.status ?? 200,
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
    request_id: meta.requestId,
    key_id: meta.keyId ?? null,
  }
  if (log.access) log.access(line)
  else log.info('request', line)
}

/** What the envelope reports to: the access log, and the request metrics when the app keeps them. */
export interface EnvelopeSinks {
  log: Logger
  metrics?: Pick<Metrics, 'observeRequest'>
}

/**
 * The request, and the route template it matched (Elysia's `c.route`; none for unknown routes).
 * Callers build it from those two members, never pass Elysia's context itself: Elysia reads each
 * handler's source to decide what to prepare per request, and a handler that hands the whole
 * context on gets everything prepared (a third of the REST throughput, measured).
 */
export interface Routed {
  request: Request
  route?: string
}

/**
 * Runs one request's handler inside the envelope: assigns the request id (the caller's UUID or
 * a new UUIDv7) before `fn` runs, maps anything `fn` throws through respond.ts (a ServiceError
 * to its status and code, anything else to a logged 500 without a stack), sets X-Request-Id on
 * the answer, logs the access line and counts the request by route template. `fn` may record
 * the credential in `meta.keyId`.
 */
export async function handled(
  sinks: EnvelopeSinks,
  { request, route }: Routed,
  fn: (meta: RequestMeta) => Promise<Response> | Response,
): Promise<Response> {
  const { log } = sinks
  const started = performance.now()
  const meta: RequestMeta = { requestId: requestIdFor(request) }
  let response: Response
  try {
    response = await fn(meta)
  } catch (err) {
    const mapped = errorResponse(err, meta.requestId)
    if (mapped.internal)
      log.error('request failed', {
        request_id: meta.requestId,
        error: String((err as Error)?.stack ?? err),
      })
    response = mapped.response
  }
  if (!meta.requestIdSent) response.headers.set('x-request-id', meta.requestId)
  // A 413 leaves the rest of the body unread: the connection is closed, not drained or held.
  if (response.status === 413) response.headers.set('connection', 'close')
  meta.status = response.status
  logRequest(log, request, meta, started)
  sinks.metrics?.observeRequest(request.method, route, response.status, (performance.now() - started) / 1000)
  return response
}
