import { eq, sql } from 'drizzle-orm'
import { decodeJwt, decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from 'jose'
import type { AppContext } from '../../context'
import { preparedQuery } from '../../db/prepared-query'
import { clients } from '../../db/schema'

import type { Awaitable } from '../../lib/awaitable'
import { parseId } from '../../lib/ids'
import { JWKS_ALGORITHMS } from '../../lib/jwks-algorithms'
import { OAUTH_SCOPES } from '../../lib/scopes'
import { oauthActor } from '../actors/actor'
import { ID_JAG_TYP } from '../agents/id-jag'
import { JwksUnavailable, remoteKeySet } from './external-keys'
import { looksLikeJwt } from './keys'
import type { TokenOutcome } from './token-outcome'

// External identity provider mode: an operator whose users sign in elsewhere names the
// provider (HERALD_OAUTH_EXTERNAL_ISSUER + _JWKS_URL), and bearer JWTs it issued for Herald are
// accepted on REST and MCP like Herald's own access tokens: `scope` (space-separated, only the
// OAuth scopes count), `tenant` (the Herald client id the token acts for; required), `aud` (this
// resource), `exp` (required), signed by a key of the provider's JWKS.
//
// Request authentication is synchronous (an API-key look-up, our own EdDSA tokens) and jose's
// verification with a remote key set is not, so it is split: `prepare` (awaited by the HTTP layer
// before the request is handled, ../../http/middleware/external-token.ts) verifies the signature
// and claims once per token with jose and remembers the outcome; `authenticate` (called by the
// one authenticator, ./authenticate.ts) reads it and judges what can change per request: expiry
// on the injected clock, the tenant still existing and not suspended. A verified token stays
// verified until it expires, as Herald's own do (./authenticate.ts): a key the provider withdraws
// does not recall tokens already seen; their `exp` bounds them.

/** Skew tolerated between the provider's clock and ours on `exp` and `nbf`, as for ID-JAGs. */
export const EXTERNAL_CLOCK_TOLERANCE_S = 30
const REMEMBERED_MAX = 10_000

/** Header `typ`s of an access token (RFC 9068 `at+jwt`, or a plain JWT); a token without `typ` passes too. */
const ACCESS_TOKEN_TYPES = new Set(['jwt', 'at+jwt', 'application/at+jwt'])
const OAUTH_SCOPE_SET: ReadonlySet<string> = new Set(OAUTH_SCOPES)

interface Verified {
  readonly subject: string
  readonly tenant: string
  readonly scopes: readonly string[]
  readonly exp: number
}

export interface ExternalTokens {
  readonly issuer: string
  /** Does the token name the external issuer (`iss`, unverified)? Cheap; no signature check. */
  owns(token: string): boolean
  /** Verifies the token with jose against the provider's JWKS and remembers the outcome. Never throws. */
  prepare(token: string): Promise<void>
  /** The outcome `prepare` remembered, judged at `now`; a token never prepared is unknown. */
  authenticate(token: string, now: number): Awaitable<TokenOutcome>
}

const instances = new WeakMap<AppContext, ExternalTokens | null>()

/** The app's external-token verifier (one per app: its key set and memory), or null when the mode is off. */
export function externalTokens(app: AppContext): ExternalTokens | null {
  let found = instances.get(app)
  if (found === undefined) {
    const { oauthExternalIssuer: issuer, oauthExternalJwksUrl: jwksUrl } = app.config
    found = issuer && jwksUrl ? create(app, issuer, jwksUrl) : null
    instances.set(app, found)
  }
  return found
}

const refused = (message: string): TokenOutcome => ({ ok: false, reason: 'unknown', message })

function create(app: AppContext, issuer: string, jwksUrl: string): ExternalTokens {
  // Cached, refetched on an unknown `kid` (at most every 30 s on the injected clock): a provider
  // rotating its keys keeps working without a restart.
  const keysAt = remoteKeySet(jwksUrl)
  const audience = app.config.oauthExternalAudience ?? [
    app.config.publicUrl,
    `${app.config.publicUrl}/mcp/v1`,
  ]

  // Tokens that verified (their claims cannot change) and why the others did not, for
  // `authenticate` to read. A failed token is verified afresh by each request's `prepare` (the
  // JWKS may be back, the key rotated in, `nbf` passed), so its entry is always its own request's
  // outcome; read, not deleted, so concurrent requests with one token each find it. Oldest dropped
  // first when full, so an entry made by `prepare` survives until its own request reads it.
  const verified = new Map<string, Verified>()
  const failed = new Map<string, string>()
  const remember = <T>(map: Map<string, T>, token: string, value: T) => {
    if (map.size >= REMEMBERED_MAX) map.delete(map.keys().next().value as string)
    map.set(token, value)
  }

  async function verify(token: string): Promise<Verified | string> {
    try {
      const typ = decodeProtectedHeader(token).typ?.toLowerCase()
      // An ID-JAG is an authorization grant for the token endpoint, never an access token.
      if (typ === ID_JAG_TYP || (typ !== undefined && !ACCESS_TOKEN_TYPES.has(typ)))
        return `The access token's type (typ ${typ}) is not an access token`
    } catch {
      return 'The access token is not a JWT'
    }
    const now = app.clock.now()
    let payload: JWTPayload
    try {
      ;({ payload } = await jwtVerify(token, keysAt(now), {
        issuer,
        audience,
        currentDate: new Date(now),
        clockTolerance: EXTERNAL_CLOCK_TOLERANCE_S,
        requiredClaims: ['sub', 'exp'],
        algorithms: [...JWKS_ALGORITHMS],
      }))
    } catch (err) {
      return describe(err)
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') return 'The access token has no subject (sub)'
    if (typeof payload.scope !== 'string')
      return 'The access token has no scope claim (space-separated scopes)'
    if (typeof payload.tenant !== 'string' || payload.tenant === '')
      return 'The access token has no tenant claim (the id of the Herald client it acts for)'
    const tenant = parseId(payload.tenant)
    if (!tenant) return "The access token's tenant claim is not a Herald client id"
    return {
      subject: `${issuer}#${payload.sub}`,
      tenant,
      // Scopes Herald does not know (openid, profile, another API's) grant nothing here; admin:*
      // is not an OAuth scope, so no provider can grant it.
      scopes: payload.scope.split(' ').filter((s) => OAUTH_SCOPE_SET.has(s)),
      exp: payload.exp as number,
    }
  }

  const tenantStatus = preparedQuery(
    app.db
      .select({ status: clients.status })
      .from(clients)
      .where(eq(clients.id, sql.placeholder('id'))),
    'external_token_tenant',
  )

  return {
    issuer,
    owns(token) {
      if (verified.has(token)) return true
      // An API key (most requests) is told apart without a parse and a throw.
      if (!looksLikeJwt(token)) return false
      try {
        return decodeJwt(token).iss === issuer
      } catch {
        return false
      }
    },
    async prepare(token) {
      if (verified.has(token)) return
      const outcome = await verify(token)
      if (typeof outcome === 'string') remember(failed, token, outcome)
      else {
        failed.delete(token)
        remember(verified, token, outcome)
      }
    },
    async authenticate(token, now) {
      const v = verified.get(token)
      if (!v) return refused(failed.get(token) ?? 'The access token could not be verified')
      if ((v.exp + EXTERNAL_CLOCK_TOLERANCE_S) * 1000 <= now)
        return { ok: false, reason: 'expired', message: 'The access token has expired' }
      const client = (await tenantStatus({ id: v.tenant }))[0]
      if (!client) return refused("The access token's tenant names no client of this server")
      if (client.status === 'suspended') return { ok: false, reason: 'client_suspended' }
      return { ok: true, actor: oauthActor({ subject: v.subject, tenant: v.tenant, scopes: v.scopes }) }
    },
  }
}

function describe(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'The access token has expired'
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.reason === 'missing') return `The access token has no ${err.claim} claim (required)`
    if (err.claim === 'aud') return "The access token's audience (aud) is not this server"
    if (err.claim === 'iss') return 'The access token is not from the external identity provider'
    if (err.claim === 'nbf') return 'The access token is not valid yet'
    return `The access token's ${err.claim} claim is invalid`
  }
  if (
    err instanceof errors.JWSSignatureVerificationFailed ||
    err instanceof errors.JWKSNoMatchingKey ||
    err instanceof errors.JWKSMultipleMatchingKeys
  )
    return "The access token is not signed by a key of the identity provider's JWKS"
  if (err instanceof JwksUnavailable) return "The identity provider's keys (JWKS) could not be fetched"
  if (err instanceof errors.JOSEAlgNotAllowed)
    return 'The access token uses an algorithm that is not accepted'
  if (err instanceof errors.JWTInvalid || err instanceof errors.JWSInvalid)
    return 'The access token is not a valid JWT'
  return 'The access token could not be verified'
}
