import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { jwks } from '../../services/oauth/keys'
import { authorizationServerMetadata } from '../../services/oauth/metadata'
import { clientIp } from '../admin/client-ip'
import { handled } from '../envelope'
import { createIpLimiter } from '../middleware/rate-limit'
import { createAuthorizeEndpoint } from './authorize'
import { registerEndpoint, revokeEndpoint, tokenEndpoint } from './endpoints'
import { CORS, oauthJson, rateLimited } from './respond'

// Herald's OAuth 2.1 authorization server (DESIGN §5): metadata (RFC 8414), JWKS, authorize
// (portal sign-in + consent), token, revocation (RFC 7009), dynamic registration (RFC 7591).
// Token, revocation and registration take no credential of Herald's, so each has its own
// per-IP bucket (the sign-in rate, 20/min by default).

type Ctx = { request: Request; server: { requestIP(r: Request): { address: string } | null } | null }

export function oauthPlugin(app: AppContext) {
  const authorize = createAuthorizeEndpoint(app)
  const ipOf = (c: Ctx) => clientIp(c.request, c.server?.requestIP(c.request)?.address ?? null)
  const limited = (endpoint: (app: AppContext, request: Request) => Promise<Response>) => {
    const take = createIpLimiter(app.config.loginRatePerMinute)
    return (c: Ctx) =>
      handled(app.log, c.request, () => {
        const rate = take(ipOf(c), app.clock.now())
        if (!rate.allowed) return rateLimited(rate.headers['retry-after']!)
        return endpoint(app, c.request)
      })
  }
  const plain = (fn: (request: Request) => Promise<Response> | Response) => (c: Ctx) =>
    handled(app.log, c.request, () => fn(c.request))
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
      plain(() => oauthJson(200, jwks(app), { 'cache-control': 'max-age=300' })),
      opts,
    )
    .get(
      '/oauth2/authorize',
      (c: Ctx) => handled(app.log, c.request, () => authorize.get(c.request, ipOf(c))),
      opts,
    )
    .post('/oauth2/authorize', plain(authorize.post), opts)
    .post('/oauth2/token', limited(tokenEndpoint), opts)
    .post('/oauth2/revoke', limited(revokeEndpoint), opts)
    .post('/oauth2/register', limited(registerEndpoint), opts)
    .options('/.well-known/oauth-authorization-server', preflight, opts)
    .options('/oauth2/jwks', preflight, opts)
    .options('/.well-known/oauth-protected-resource', preflight, opts)
    .options('/.well-known/oauth-protected-resource/mcp/v1', preflight, opts)
    .options('/oauth2/token', preflight, opts)
    .options('/oauth2/revoke', preflight, opts)
    .options('/oauth2/register', preflight, opts)
}
