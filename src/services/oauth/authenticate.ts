import { eq, sql } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { preparedQuery } from '../../db/prepared-query'
import { clients, oauthClients, oauthGrants, oauthRevokedTokens } from '../../db/schema'

import { oauthActor } from '../actors/actor'
import { isHeraldAudience } from './authorize'
import { externalTokens } from './external'
import { looksLikeJwt, verifyJwt } from './keys'
import type { TokenOutcome } from './token-outcome'

// Access tokens presented as `Authorization: Bearer` on REST and MCP: our signature, our issuer,
// an audience of ours, a workspace, not expired, and its grant still standing (not revoked, its client not deleted, the token not
// revoked on its own). One indexed look-up per request, so revocation takes effect at once.
// In external identity provider mode, a token of that issuer is judged by ./external.ts instead.

export { looksLikeJwt }

const VERIFIED_MAX = 10_000

export function createTokenAuthenticator(app: AppContext) {
  const standingQuery = app.db
    .select({
      revokedAt: oauthGrants.revokedAt,
      deletedAt: oauthClients.deletedAt,
      tenantStatus: clients.status,
      jtiRevoked: sql<
        number | null
      >`(select 1 from ${oauthRevokedTokens} where ${oauthRevokedTokens.jti} = ${sql.placeholder('jti')})`,
    })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.oauthClientId))
    .leftJoin(clients, eq(clients.id, oauthGrants.tenant))
    .where(eq(oauthGrants.id, sql.placeholder('grant')))
  const standing = preparedQuery(standingQuery, 'oauth_grant_standing')

  // A token's signature is checked once per process: its claims cannot change, and the Ed25519
  // check (~50 µs) was most of a token's cost per request. Whether it still stands (expiry,
  // revocation) is checked on every request below.
  const verified = new Map<string, Record<string, unknown> | null>()
  const external = externalTokens(app)

  return async function authenticateToken(token: string, now: number): Promise<TokenOutcome> {
    // One of ours already verified skips the issuer look-up; otherwise `iss` tells the two apart.
    if (external !== null && !verified.get(token) && external.owns(token))
      return await external.authenticate(token, now)
    let claims = verified.get(token)
    if (claims === undefined) {
      claims = await verifyJwt(app, token)
      // Audience-restricted (RFC 8707, RFC 9068 §4): our signature alone does not make a token
      // for another resource good here. Judged once with the signature: claims cannot change.
      if (claims && !isHeraldAudience(app, claims.aud)) claims = null
      if (verified.size >= VERIFIED_MAX) verified.clear()
      verified.set(token, claims)
    }
    if (!claims || claims.iss !== app.config.publicUrl) return { ok: false, reason: 'unknown' }
    const { sub, scope, tenant, jti, exp } = claims
    if (
      typeof sub !== 'string' ||
      typeof scope !== 'string' ||
      typeof jti !== 'string' ||
      typeof exp !== 'number'
    )
      return { ok: false, reason: 'unknown' }
    // Every token acts in one workspace: one without (a client-credentials token minted when no
    // workspace existed) would act platform-wide, so it is not accepted.
    if (typeof tenant !== 'string') return { ok: false, reason: 'unknown' }
    if (exp * 1000 <= now) return { ok: false, reason: 'expired' }
    const grant = (await standing({ grant: jti.split('.')[0]!, jti }))[0]
    if (!grant) return { ok: false, reason: 'unknown' }
    if (grant.revokedAt !== null || grant.deletedAt !== null || grant.jtiRevoked)
      return { ok: false, reason: 'revoked' }
    if (grant.tenantStatus === 'suspended') return { ok: false, reason: 'client_suspended' }
    return {
      ok: true,
      actor: oauthActor({ subject: sub, tenant, scopes: scope === '' ? [] : scope.split(' ') }),
    }
  }
}
