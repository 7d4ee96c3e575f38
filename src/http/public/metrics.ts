import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { safeEqual } from '../../lib/crypto'
import { scrapeMetrics } from '../../services/metrics/collect'
import { presentedCredential } from '../middleware/auth'
import { handled } from '../rest/envelope'
import { errorBody, jsonResponse } from '../rest/respond'

// GET /metrics in Prometheus' text format. Without HERALD_METRICS_TOKEN only a direct loopback
// request is answered: a request a reverse proxy on this host forwarded (it carries
// X-Forwarded-For or Forwarded) is not direct, so publishing the port through a proxy does not
// publish the metrics. Anything else gets 404, as if there were no such route. With the token,
// a request from anywhere must present it as a Bearer token (401 otherwise).

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/
const TEXT_FORMAT = 'text/plain; version=0.0.4; charset=utf-8'

/** An in-process request (tests: no peer) counts as loopback. */
function direct(request: Request, peer: string | null): boolean {
  if (peer !== null && !LOOPBACK.test(peer)) return false
  return !request.headers.has('x-forwarded-for') && !request.headers.has('forwarded')
}

export function metricsPlugin(app: AppContext) {
  const token = app.config.metricsToken
  return new Elysia({ name: 'herald-metrics' }).get(
    '/metrics',
    (c) =>
      handled(app, { request: c.request, route: c.route }, async (meta) => {
        if (token !== null) {
          const presented = presentedCredential(c.request).token
          if (presented === null || !safeEqual(presented, token))
            return jsonResponse(
              401,
              errorBody('UNAUTHORIZED', 'GET /metrics needs its Bearer token', meta.requestId),
              {
                'www-authenticate': 'Bearer realm="metrics"',
              },
            )
        } else if (!direct(c.request, c.server?.requestIP(c.request)?.address ?? null)) {
          return jsonResponse(404, errorBody('NOT_FOUND', 'No route for GET /metrics', meta.requestId))
        }
        return new Response(await scrapeMetrics(app), {
          headers: { 'content-type': TEXT_FORMAT, 'cache-control': 'no-store' },
        })
      }),
    { parse: 'none', detail: { hide: true } },
  )
}
