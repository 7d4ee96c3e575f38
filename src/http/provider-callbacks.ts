import { Elysia } from 'elysia'
import { parseTwilioStatus, TWILIO_STATUS_PATH, verifyTwilioSignature } from '../channels/twilio'
import type { AppContext } from '../context'
import { applyProviderStatus } from '../services/messages/provider-status'
import { readLimited } from './middleware/body'
import { requestIdFor } from './middleware/request-id'
import { errorBody, jsonResponse } from './respond'
import { logRequest } from './router'

// Delivery reports posted by channel providers. They carry no API key: a Twilio callback is
// authenticated by X-Twilio-Signature (HMAC-SHA1 with the auth token over the URL Twilio was
// given — HERALD_PUBLIC_URL + the path — and the form parameters).

export function providerCallbacksPlugin(app: AppContext) {
  return new Elysia({ name: 'herald-provider-callbacks' }).post(
    TWILIO_STATUS_PATH,
    async ({ request }) => {
      const started = performance.now()
      const requestId = requestIdFor(request)
      const answer = (response: Response) => {
        response.headers.set('x-request-id', requestId)
        logRequest(app.log, request, { requestId, status: response.status }, started)
        return response
      }
      const fail = (status: number, code: 'FORBIDDEN' | 'NOT_FOUND' | 'VALIDATION_FAILED', message: string) =>
        answer(jsonResponse(status, errorBody(code, message, requestId)))
      const token = app.config.twilioAuthToken
      if (!token) return fail(404, 'NOT_FOUND', 'No Twilio provider is configured')
      let params: Record<string, string>
      try {
        const raw = new TextDecoder().decode(await readLimited(request, 64 * 1024))
        params = Object.fromEntries(new URLSearchParams(raw))
      } catch {
        return fail(422, 'VALIDATION_FAILED', 'The body must be a form of at most 64 KiB')
      }
      const url = app.config.publicUrl + new URL(request.url).pathname + new URL(request.url).search
      if (!verifyTwilioSignature(token, url, params, request.headers.get('x-twilio-signature')))
        return fail(403, 'FORBIDDEN', 'X-Twilio-Signature does not match this request')
      const status = parseTwilioStatus(params)
      if (status.providerMessageId)
        applyProviderStatus(
          app,
          'twilio',
          status.providerMessageId,
          status.status,
          [status.errorCode, status.errorMessage].filter(Boolean).join(' ') || null,
        )
      // Twilio wants a 2xx; a report for a message we do not know is acknowledged and dropped.
      return answer(new Response(null, { status: 204 }))
    },
    { parse: 'none' },
  )
}
