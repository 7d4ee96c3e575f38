import { Elysia } from 'elysia'
import type { AppContext } from './context'
import { docsPlugin } from './http/docs'
import { requestIdFor } from './http/middleware/request-id'
import { operations } from './http/operations'
import { createPipeline, type RequestMeta } from './http/pipeline'
import { providerCallbacksPlugin } from './http/provider-callbacks'
import { errorBody, jsonResponse } from './http/respond'
import { logRequest, mountOperations } from './http/router'
import { trackingPlugin } from './http/tracking'

/** Bodies up to this size reach handlers (CSV imports stream up to 200 MiB); JSON has its own 1 MiB cap. */
export const MAX_REQUEST_BODY = 210 * 1024 * 1024

/** Builds the HTTP app from a context. No I/O of its own: tests call `app.handle(request)`. */
export function createApp(ctx: AppContext) {
  const pipeline = createPipeline(ctx)
  const app = new Elysia({ serve: { maxRequestBodySize: MAX_REQUEST_BODY } })

  const routes = mountOperations(app, pipeline, operations)
  app.use(docsPlugin(operations, ctx.config.publicUrl))
  app.use(trackingPlugin(ctx))
  app.use(providerCallbacksPlugin(ctx))

  // Unknown routes and anything Elysia itself rejects. Operations answer their own errors.
  app.onError((c) => {
    const started = performance.now()
    const meta: RequestMeta = { requestId: requestIdFor(c.request) }
    const headers = { 'x-request-id': meta.requestId }
    const answer = (response: Response) => {
      meta.status = response.status
      logRequest(ctx.log, c.request, meta, started)
      return response
    }
    if (c.code === 'NOT_FOUND') {
      const pathname = new URL(c.request.url).pathname
      const allowed = routes.allowedMethods(pathname)
      if (allowed.length > 0) {
        return answer(
          jsonResponse(
            405,
            errorBody(
              'METHOD_NOT_ALLOWED',
              `${c.request.method} is not allowed on ${pathname}; use ${allowed.join(', ')}`,
              meta.requestId,
            ),
            { ...headers, allow: allowed.join(', ') },
          ),
        )
      }
      return answer(
        jsonResponse(
          404,
          errorBody('NOT_FOUND', `No route for ${c.request.method} ${pathname}`, meta.requestId),
          headers,
        ),
      )
    }
    ctx.log.error('unhandled error', {
      request_id: meta.requestId,
      code: String(c.code),
      error: String(c.error),
    })
    const message = 'An internal error occurred; it was logged with this request id'
    return answer(jsonResponse(500, errorBody('INTERNAL_ERROR', message, meta.requestId), headers))
  })
  return app
}

export type App = ReturnType<typeof createApp>
