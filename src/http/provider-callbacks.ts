import { Elysia } from 'elysia'
import { providerCallbacks } from '../channels/registry'
import type { AppContext } from '../context'
import { invalidField } from '../errors'
import { createFeedback } from '../queue/feedback'
import { handled } from './envelope'
import { readLimited } from './middleware/body'
import { errorBody, jsonResponse } from './respond'

// Delivery reports posted by channel providers, at the paths the configured providers declare.
// They carry no API key: each provider authenticates and reads its own callback (Twilio's
// X-Twilio-Signature is checked in src/channels/twilio.ts) and reports what it learnt as feedback.

/** A callback body is a small form; anything bigger is refused before the provider sees it. */
const MAX_CALLBACK_BODY = 64 * 1024

export function providerCallbacksPlugin(app: AppContext) {
  const plugin = new Elysia({ name: 'herald-provider-callbacks' })
  const feedback = createFeedback(app)
  for (const callback of providerCallbacks(app.config))
    plugin.post(
      callback.path,
      ({ request }) =>
        handled(app.log, request, async (meta) => {
          let body: string
          try {
            body = new TextDecoder().decode(await readLimited(request, MAX_CALLBACK_BODY))
          } catch {
            throw invalidField('body', 'must be a form of at most 64 KiB')
          }
          const { pathname, search } = new URL(request.url)
          const url = app.config.publicUrl + pathname + search
          const r = await callback.handle({ url, headers: request.headers, body }, feedback)
          if (!r.ok) return jsonResponse(r.status, errorBody(r.code, r.message, meta.requestId))
          // Providers want a 2xx; a report for a message we do not know is acknowledged and dropped.
          return new Response(null, { status: 204 })
        }),
      // Addressed by providers, not API clients: not in /openapi.json.
      { parse: 'none', detail: { hide: true } },
    )
  return plugin
}
