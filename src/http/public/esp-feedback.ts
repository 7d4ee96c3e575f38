import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { ServiceError } from '../../errors'
import { receiveEspNotification } from '../../services/esp-feedback/receive'
import { createSnsVerifier, type SnsVerifierOptions } from '../../services/esp-feedback/sns-signature'
import { ESP_PROVIDERS, type EspProvider } from '../../services/esp-feedback/types'
import { requestBuckets } from '../../services/limits/request-buckets'
import { clientIp } from '../admin/client-ip'
import { ANONYMOUS_BODY_LIMIT, readLimited } from '../middleware/body'
import { createIpLimiter } from '../middleware/rate-limit'
import { handled } from '../rest/envelope'
import { errorBody, jsonResponse } from '../rest/respond'

// ESP feedback: bounces, complaints and deliveries posted by SES (through SNS), Postmark,
// Mailgun and SendGrid to `/hooks/{provider}/{token}`. No API key: the token names the client and
// each provider's own signature or credentials are the proof (services/esp-feedback).

/**
 * Per-IP requests a minute. Providers post one notification per message event, so this is far
 * above the sign-in rate; it only bounds a flood from one address (a provider refused with 429
 * posts again later).
 */
const PER_IP_PER_MINUTE = 1200

type Ctx = {
  route?: string
  params: Record<string, string>
  request: Request
  server: { requestIP(r: Request): { address: string } | null } | null
}

export function espFeedbackPlugin(app: AppContext, sns: Partial<SnsVerifierOptions> = {}) {
  const verifySns = createSnsVerifier({
    extraHosts: app.config.snsCertHosts,
    now: () => app.clock.now(),
    ...sns,
  })
  const take = createIpLimiter(PER_IP_PER_MINUTE, requestBuckets(app, 'esp-feedback'))
  return new Elysia({ name: 'herald-esp-feedback' }).post(
    '/hooks/:provider/:token',
    (c: Ctx) =>
      handled(app, { request: c.request, route: c.route }, async (meta) => {
        const provider = c.params.provider as EspProvider
        if (!ESP_PROVIDERS.includes(provider))
          throw new ServiceError('NOT_FOUND', `No feedback endpoint for provider ${c.params.provider}`)
        const rate = await take(
          clientIp(c.request, c.server?.requestIP(c.request)?.address ?? null, app.config.trustedProxies),
          app.clock.now(),
        )
        if (!rate.allowed)
          return jsonResponse(
            429,
            errorBody(
              'RATE_LIMITED',
              `Too many requests from this address; retry in ${rate.headers['retry-after']} s`,
              meta.requestId,
            ),
            rate.headers,
          )
        // Over the cap: 413 before any signature is checked.
        const body = new TextDecoder().decode(await readLimited(c.request, ANONYMOUS_BODY_LIMIT))
        const r = await receiveEspNotification(app, verifySns, provider, c.params.token ?? '', {
          headers: c.request.headers,
          body,
        })
        if (!r.ok) {
          const code =
            r.status === 401 ? 'UNAUTHORIZED' : r.status === 400 ? 'INVALID_REQUEST' : 'UNAVAILABLE'
          return jsonResponse(r.status, errorBody(code, r.message, meta.requestId))
        }
        return Response.json({
          recorded: r.recorded,
          ignored: r.ignored,
          ...(r.confirmed ? { confirmed: true } : {}),
        })
      }),
    // Addressed by providers, not API clients: not in /openapi.json.
    { parse: 'none', detail: { hide: true } },
  )
}
