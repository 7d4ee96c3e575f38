import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { handled } from '../rest/envelope'
import { createPortal } from './portal'

// Mounts the portal on /admin. Two routes of its own and no global hook, so the REST hot path
// (/api/v1) runs exactly as without it. Bodies are left unparsed: the portal reads forms itself
// after the session check.

export function portalPlugin(app: AppContext) {
  const portal = createPortal(app)
  const handle = (c: {
    request: Request
    route?: string
    server: { requestIP(r: Request): { address: string } | null } | null
  }) =>
    handled(
      app,
      { request: c.request, route: c.route },
      async (meta) =>
        await portal.handle(c.request, c.server?.requestIP(c.request)?.address ?? null, meta.requestId),
    )
  return new Elysia({ name: 'herald-portal' })
    .all('/admin', handle, { parse: 'none', detail: { hide: true } })
    .all('/admin/*', handle, { parse: 'none', detail: { hide: true } })
}
