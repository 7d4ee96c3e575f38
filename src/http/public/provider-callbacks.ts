import { Elysia } from 'elysia'
import { providerCallbacks } from '../../channels/registry'
import type { AppContext } from '../../context'
import { createFeedback } from '../../services/messages/feedback'
import { twilioTokensOf } from '../../services/sending-profiles/twilio-tokens'
import { ANONYMOUS_BODY_LIMIT, readLimited } from '../middleware/body'
import { handled } from '../rest/envelope'
import { errorBody, jsonResponse } from '../rest/respond'

// Delivery reports posted by channel providers, at the paths the configured providers declare
// (and Twilio's always: clients' own accounts report there too).
// They carry no API key: each provider authenticates and reads its own callback (Twilio's
// X-Twilio-Signature is checked in src/channels/twilio.ts) and reports what it learnt as feedback.

/**
 * A delivery report is a small form (Twilio's status callback is under 2 KiB); anything over the
 * anonymous cap is refused. Inbound mail, which can be large, comes through the authenticated
 * /api/v1/inbound/email (10 MiB, spooled to disk) or the SMTP listener instead.
 */
const MAX_CALLBACK_BODY = ANONYMOUS_BODY_LIMIT

export function providerCallbacksPlugin(app: AppContext) {
  const plugin = new Elysia({ name: 'herald-provider-callbacks' })
  const feedback = createFeedback(app)
  for (const callback of providerCallbacks(
    app.config,
    async (clientId) => await twilioTokensOf(app, clientId),
  ))
    plugin.post(
      callback.path,
      ({ request, route }) =>
        handled(app, { request, route }, async (meta) => {
          // Over the cap: 413, before the provider's signature check reads anything.
          const body = new TextDecoder().decode(await readLimited(request, MAX_CALLBACK_BODY))
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
