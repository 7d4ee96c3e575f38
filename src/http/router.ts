import type { Elysia } from 'elysia'
import type { Logger } from '../lib/log'
import { requestIdFor } from './middleware/request-id'
import type { Operation } from './operation'
import { type Pipeline, type RequestMeta, runOperation } from './pipeline'

/** The access log: one line per request, never the credential or a body. */
export function logRequest(log: Logger, request: Request, meta: RequestMeta, started: number): void {
  const url = request.url
  const pathStart = url.indexOf('/', url.indexOf('//') + 2)
  const q = url.indexOf('?', pathStart)
  log.info('request', {
    method: request.method,
    path: url.slice(pathStart, q === -1 ? undefined : q),
    status: meta.status ?? 200,
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
    request_id: meta.requestId,
    key_id: meta.keyId ?? null,
  })
}

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
    app.route(
      o.method,
      toElysiaPath(o.path),
      async (c) => {
        const started = performance.now()
        const meta: RequestMeta = { requestId: requestIdFor(c.request) }
        const params = (c.params ?? {}) as Record<string, string>
        const response = await runOperation(pipeline, o, c.request, params, meta)
        logRequest(pipeline.app.log, c.request, meta, started)
        return response
      },
      { parse: 'none', detail: { hide: true } },
    )
    patterns.push({ re: new RegExp(`^${o.path.replace(/\{\w+\}/g, '[^/]+')}/?$`), method: o.method })
  }
  return {
    allowedMethods: (pathname) => [
      ...new Set(patterns.filter((p) => p.re.test(pathname)).map((p) => p.method)),
    ],
  }
}
