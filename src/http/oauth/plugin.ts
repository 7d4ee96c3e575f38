import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { ServiceError } from '../../errors'
import { requestBuckets } from '../../services/limits/request-buckets'
import { jwks } from '../../services/oauth/keys'
import { authorizationServerMetadata } from '../../services/oauth/metadata'
import { clientIp } from '../admin/client-ip'
import { ANONYMOUS_BODY_LIMIT, bufferedRequest } from '../middleware/body'
import { createIpLimiter } from '../middleware/rate-limit'
import { handled } from '../rest/envelope'
import { createAuthorizeEndpoint } from './authorize'
import { registerEndpoint, revokeEndpoint, tokenEndpoint } from './endpoints'
import { CORS, oauthJson, rateLimited } from './respond'

// Herald's OAuth 2.1 authorization server: metadata (RFC 8414), JWKS, authorize (portal
// sign-in + consent), token, revocation (RFC 7009), dynamic registration (RFC 7591).
// The POSTs take no credential of Herald's before they read a body, so each has its own per-IP
// bucket (the sign-in rate, 20/min by default), taken first, and reads at most 64 KiB.

type Ctx = {
  request: Request
  /** The route template Elysia matched (for the request metrics). */
  route?: string
  server: { requestIP(r: Request): { address: string } | null } | null
}

/** How an endpoint answers the guard's 413 or 429 (with Retry-After): in its own error format. */
type Refuse = (status: 413 | 429, message: string, retryAfter?: string) => Response | Promise<Response>

const oauthRefusal: Refuse = (status, message, retryAfter) =>
  status === 429
    ? rateLimited(retryAfter!)
    : oauthJson(413, { error: 'invalid_request', error_description: message })

export function oauthPlugin(app: AppContext) {
  const authorize = createAuthorizeEndpoint(app)
  const ipOf = (c: Ctx) =>
    clientIp(c.request, c.server?.requestIP(c.request)?.address ?? null, app.config.trustedProxies)
  /** One token of the endpoint's per-IP bucket, then its body within the cap, then the endpoint. */
  const guarded = (
    name: string,
    endpoint: (request: Request) => Promise<Response>,
    refuse: Refuse = oauthRefusal,
  ) => {
    const take = createIpLimiter(app.config.loginRatePerMinute, requestBuckets(app, `oauth-${name}`))
    return (c: Ctx) =>
      handled(app, { request: c.request, route: c.route }, async () => {
        const rate = await take(ipOf(c), app.clock.now())
        const retryAfter = rate.headers['retry-after']
        if (!rate.allowed)
          return refuse(429, `Too many requests from this address; retry in ${retryAfter} s`, retryAfter)
        let request: Request
        try {
          request = await bufferedRequest(c.request, ANONYMOUS_BODY_LIMIT)
        } catch (err) {
          if (err instanceof ServiceError && err.code === 'PAYLOAD_TOO_LARGE') return refuse(413, err.message)
          throw err
        }
        return endpoint(request)
      })
  }
  const limited = (name: string, endpoint: (app: AppContext, request: Request) => Promise<Response>) =>
    guarded(name, (request) => endpoint(app, request))
  const plain = (fn: (request: Request) => Promise<Response> | Response) => (c: Ctx) =>
    handled(app, { request: c.request, route: c.route }, () => fn(c.request))
  const preflight = () =>
    new Response(null, { status: 204, headers: { ...CORS, 'access-control-max-age': '86400' } })
  const opts = { parse: 'none' as const, detail: { hide: true } }
  // The protected-resource documents are REST operations (`cors: true`); their preflight is here.

  return new Elysia({ name: 'herald-oauth' })
    .get(
      '/.well-known/oauth-authorization-server',
      plain(() => oauthJson(200, authorizationServerMetadata(app), { 'cache-control': 'max-age=300' })),
      opts,
    )
    .get(
      '/oauth2/jwks',
      plain(async () => oauthJson(200, await jwks(app), { 'cache-control': 'max-age=300' })),
      opts,
    )
    .get(
      '/oauth2/authorize',
      (c: Ctx) =>
        handled(
          app,
          { request: c.request, route: c.route },
          async () => await authorize.get(c.request, ipOf(c)),
        ),
      opts,
    )
    .post('/oauth2/authorize', guarded('authorize', authorize.post, authorize.refuse), opts)
    .post('/oauth2/token', limited('token', tokenEndpoint), opts)
    .post('/oauth2/revoke', limited('revoke', revokeEndpoint), opts)
    .post('/oauth2/register', limited('register', registerEndpoint), opts)
    .options('/.well-known/oauth-authorization-server', preflight, opts)
    .options('/oauth2/jwks', preflight, opts)
    .options('/.well-known/oauth-protected-resource', preflight, opts)
    .options('/.well-known/oauth-protected-resource/mcp/v1', preflight, opts)
    .options('/oauth2/token', preflight, opts)
    .options('/oauth2/revoke', preflight, opts)
    .options('/oauth2/register', preflight, opts)
}
