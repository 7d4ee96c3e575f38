import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { readiness } from '../../services/instance/readiness'
import { handled } from '../rest/envelope'
import { jsonResponse } from '../rest/respond'

// Liveness and readiness for orchestrators (Docker HEALTHCHECK, Kubernetes, systemd watchdogs).
// No credential, and not API operations: /openapi.json leaves them out (docs/operations.md
// documents them). GET /api/v1/health stays the API's own check.

const NO_STORE = { 'cache-control': 'no-store' }
const LIVE = JSON.stringify({ status: 'ok', checks: [] })
const options = { parse: 'none' as const, detail: { hide: true } }

export function probesPlugin(app: AppContext) {
  return (
    new Elysia({ name: 'herald-probes' })
      // The process answers: no I/O, so a busy database never gets a live process restarted.
      .get(
        '/healthz',
        (c) => handled(app, { request: c.request, route: c.route }, () => jsonResponse(200, LIVE, NO_STORE)),
        options,
      )
      .get(
        '/readyz',
        (c) =>
          handled(app, { request: c.request, route: c.route }, async () => {
            const r = await readiness(app)
            return jsonResponse(r.status === 'ok' ? 200 : 503, JSON.stringify(r), NO_STORE)
          }),
        options,
      )
  )
}
