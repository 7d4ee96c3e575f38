import { Elysia } from 'elysia'
import type { AppContext } from './context'
import { ServiceError } from './errors'
import { portalPlugin } from './http/admin/plugin'
import { mountMcp } from './http/mcp/plugin'
import { externalTokenHook } from './http/middleware/external-token'
import { oauthPlugin } from './http/oauth/plugin'
import { docsPlugin } from './http/openapi/docs'
import { espFeedbackPlugin } from './http/public/esp-feedback'
import { formsPlugin } from './http/public/forms'
import { inboundSmsPlugin } from './http/public/inbound-sms'
import { metricsPlugin } from './http/public/metrics'
import { preferencesPlugin } from './http/public/preferences'
import { probesPlugin } from './http/public/probes'
import { providerCallbacksPlugin } from './http/public/provider-callbacks'
import { trackingPlugin } from './http/public/tracking'
import { handled } from './http/rest/envelope'
import { createPipeline } from './http/rest/pipeline'
import { operations } from './http/rest/registry'
import { errorBody, jsonResponse } from './http/rest/respond'
import { mountOperations } from './http/rest/router'
import { registerFormats } from './lib/formats'

/**
 * Bodies up to this size reach handlers (CSV imports stream up to 200 MiB); JSON has its own 1 MiB
 * cap, and doors that take no credential read at most 64 KiB (ANONYMOUS_BODY_LIMIT).
 */
export const MAX_REQUEST_BODY = 210 * 1024 * 1024

/** Builds the HTTP app from a context. No I/O of its own: tests call `app.handle(request)`. */
export function createApp(ctx: AppContext) {
  const pipeline = createPipeline(ctx)
  const app = new Elysia({ serve: { maxRequestBodySize: MAX_REQUEST_BODY } })

  // External identity provider mode: its bearer tokens are verified before any route runs.
  const externalTokens = externalTokenHook(ctx)
  if (externalTokens) app.onRequest(externalTokens)

  const routes = mountOperations(app, pipeline, operations)
  // The MCP door: tools generated from the same registry, on routes of their own.
  mountMcp(app, pipeline, operations)
  app.use(docsPlugin(operations, ctx.config.publicUrl))
  // The docs plugin's generator registers its own string formats when loaded; ours decide.
  registerFormats()
  app.use(trackingPlugin(ctx))
  app.use(preferencesPlugin(ctx))
  app.use(formsPlugin(ctx))
  app.use(providerCallbacksPlugin(ctx))
  app.use(inboundSmsPlugin(ctx))
  app.use(espFeedbackPlugin(ctx))
  // The admin portal: its own two routes under /admin, no hook on the API's path.
  app.use(portalPlugin(ctx))
  // The OAuth authorization server: /oauth2/* and its metadata.
  app.use(oauthPlugin(ctx))
  // Operations: liveness, readiness and Prometheus metrics.
  app.use(probesPlugin(ctx))
  app.use(metricsPlugin(ctx))

  // Unknown routes and anything Elysia itself rejects. Operations answer their own errors.
  app.onError((c) =>
    handled(ctx, { request: c.request, route: c.route }, (meta) => {
      if (c.code !== 'NOT_FOUND') throw c.error // anything else Elysia rejects: a logged 500
      const pathname = new URL(c.request.url).pathname
      const allowed = routes.allowedMethods(pathname)
      if (allowed.length === 0)
        throw new ServiceError('NOT_FOUND', `No route for ${c.request.method} ${pathname}`)
      const message = `${c.request.method} is not allowed on ${pathname}; use ${allowed.join(', ')}`
      return jsonResponse(405, errorBody('METHOD_NOT_ALLOWED', message, meta.requestId), {
        allow: allowed.join(', '),
      })
    }),
  )
  return app
}

export type App = ReturnType<typeof createApp>
