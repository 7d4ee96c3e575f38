import type { Context, Elysia } from 'elysia'
import type { Operation } from './define-operation'
import { handled } from './envelope'
import { type Pipeline, runOperation } from './pipeline'

/** `/api/v1/clients/{id}` → Elysia's `/api/v1/clients/:id`. */
const toElysiaPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1')

export interface RouteTable {
  /** Methods served at a path, for 405 + Allow on a known path. */
  allowedMethods(pathname: string): string[]
}

export function mountOperations(
  app: Elysia,
  pipeline: Pipeline,
  operations: readonly Operation[],
): RouteTable {
  const patterns: { re: RegExp; method: string }[] = []
  for (const o of operations) {
    // Elysia reads a handler's source to see which parts of the context it uses: only a handler
    // that names `server` gets it defined on every request's context, so only operations with a
    // per-IP bucket (which need the peer address) use that form.
    const handler = o.perIpLimit
      ? (c: Context) =>
          handled(pipeline.app, { request: c.request, route: c.route }, async (meta) => {
            meta.peer = c.server?.requestIP(c.request)?.address ?? null
            return await runOperation(
              pipeline,
              o,
              c.request,
              (c.params ?? {}) as Record<string, string>,
              meta,
            )
          })
      : (c: Context) =>
          handled(
            pipeline.app,
            { request: c.request, route: c.route },
            async (meta) =>
              await runOperation(pipeline, o, c.request, (c.params ?? {}) as Record<string, string>, meta),
          )
    app.route(o.method, toElysiaPath(o.path), handler, { parse: 'none', detail: { hide: true } })
    patterns.push({ re: new RegExp(`^${o.path.replace(/\{\w+\}/g, '[^/]+')}/?$`), method: o.method })
  }
  return {
    allowedMethods: (pathname) => [
      ...new Set(patterns.filter((p) => p.re.test(pathname)).map((p) => p.method)),
    ],
  }
}
