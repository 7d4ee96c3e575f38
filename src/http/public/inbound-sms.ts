import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { receiveInboundSms } from '../../services/sms-keywords/receive'
import { twiml } from '../../services/sms-keywords/twiml'
import { ANONYMOUS_BODY_LIMIT, readLimited } from '../middleware/body'
import { handled } from '../rest/envelope'
import { errorBody, jsonResponse } from '../rest/respond'

// Texts sent to a client's Twilio number (its Messaging webhook): `/hooks/twilio/sms/{token}`.
// No API key: the token names the client, X-Twilio-Signature is the proof
// (services/sms-keywords). The answer is TwiML, which is how Twilio texts back.

export function inboundSmsPlugin(app: AppContext) {
  return new Elysia({ name: 'herald-inbound-sms' }).post(
    '/hooks/twilio/sms/:token',
    ({ params, request, route }: { params: Record<string, string>; request: Request; route: string }) =>
      handled(app, { request, route }, async (meta) => {
        // An inbound text is a small form; over the cap: 413 before the signature is checked.
        const body = new TextDecoder().decode(await readLimited(request, ANONYMOUS_BODY_LIMIT))
        const { pathname, search } = new URL(request.url)
        const r = await receiveInboundSms(app, params.token ?? '', {
          url: app.config.publicUrl + pathname + search,
          headers: request.headers,
          body,
        })
        if (!r.ok)
          return jsonResponse(
            r.status,
            errorBody(r.status === 401 ? 'UNAUTHORIZED' : 'NOT_FOUND', r.message, meta.requestId),
          )
        return new Response(twiml(r.reply), { headers: { 'content-type': 'text/xml; charset=utf-8' } })
      }),
    // Addressed by Twilio, not API clients: not in /openapi.json.
    { parse: 'none', detail: { hide: true } },
  )
}
