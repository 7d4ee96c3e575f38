import { createHash } from 'node:crypto'
import { and, eq, isNull } from 'drizzle-orm'
import type { AppContext } from '../../context'
import {
  clients,
  type OAuthClientRow,
  oauthCodes,
  oauthGrants,
  oauthRefreshTokens,
  oauthRevokedTokens,
} from '../../db/schema'
import { inTransaction } from '../../db/transaction'
import type { Awaitable } from '../../lib/awaitable'
import { randomBase62, safeEqual, sha256Hex } from '../../lib/crypto'
import { newId, parseId } from '../../lib/ids'
import { OAUTH_SCOPES } from '../../lib/scopes'
import { DAY_MS, HOUR_MS } from '../../lib/time'
import { grantableScopes } from '../actors/actor'
import { IdJagError, verifyIdJag } from '../agents/id-jag'
import { spendIdJag } from '../agents/id-jag-replay'
import { loadIdentity, workspacesOf } from '../users/access'
import { defaultWorkspace, isSelfRegistered } from './clients'
import { OAuthError } from './errors'
import { signJwt, verifyJwt } from './keys'

// The grants behind every token: authorization code + PKCE (S256), refresh tokens
// that rotate on every use (a used one presented again revokes the whole grant: it was stolen
// or replayed), and client credentials for the three read scopes. Every function runs in one
// IMMEDIATE transaction, so a code or refresh token is spent exactly once even under races.

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', JWT_BEARER] as const

/**
 * The grants a client may use. A client that registered itself (RFC 7591 or a metadata document)
 * and any public client: the code flow and its refresh only. A confidential client an operator
 * registered: client credentials and ID-JAG assertions too (both rely on its secret).
 */
function grantTypesOf(client: OAuthClientRow): readonly string[] {
  if (isSelfRegistered(client) || !client.confidential) return ['authorization_code', 'refresh_token']
  return GRANT_TYPES
}

/** Refuses a grant type the client is not registered for (RFC 6749 §5.2 unauthorized_client). */
export function checkGrantType(client: OAuthClientRow, grantType: string): void {
  if ((GRANT_TYPES as readonly string[]).includes(grantType) && !grantTypesOf(client).includes(grantType))
    throw new OAuthError(
      'unauthorized_client',
      `This client is not registered for the ${grantType} grant (it may use ${grantTypesOf(client).join(', ')})`,
    )
}

/** The most a client-credentials token may carry. */
export const CLIENT_CREDENTIALS_SCOPES = ['campaigns:read', 'contacts:read', 'analytics:read'] as const

export const ACCESS_TOKEN_TTL_MS = HOUR_MS
export const REFRESH_TOKEN_TTL_MS = 30 * DAY_MS
export const CODE_TTL_MS = 10 * 60_000

export const REFRESH_TOKEN_PREFIX = 'hort_'
const CODE_PREFIX = 'hoac_'

export interface TokenResponse {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  scope: string
  refresh_token?: string
}

type GrantRow = typeof oauthGrants.$inferSelect

// --- client authentication ----------------------------------------------------------------------

export interface PresentedClient {
  clientId: string | null
  secret: string | null
  /** Basic: a failure is answered with a Basic challenge (RFC 6749 §5.2). */
  basic: boolean
}

/**
 * The client making a token or revocation request: a confidential client must prove its secret
 * (Basic or body); a public client names itself with `client_id` and proves nothing (PKCE and
 * the refresh-token binding do that).
 */
export async function authenticateClient(
  find: (id: string) => Awaitable<OAuthClientRow | null>,
  presented: PresentedClient,
): Promise<OAuthClientRow> {
  if (!presented.clientId)
    throw new OAuthError('invalid_client', 'Client authentication failed: no client_id')
  const client = await find(presented.clientId)
  if (!client) throw new OAuthError('invalid_client', 'Client authentication failed: unknown client')
  if (client.confidential) {
    if (!presented.secret || !client.secretHash || !safeEqual(sha256Hex(presented.secret), client.secretHash))
      throw new OAuthError('invalid_client', 'Client authentication failed: wrong or missing client secret')
  } else if (presented.secret) {
    throw new OAuthError('invalid_client', 'Client authentication failed: a public client has no secret')
  }
  return client
}

// --- issuing ------------------------------------------------------------------------------------

async function issue(
  app: AppContext,
  client: OAuthClientRow,
  grant: GrantRow,
  scopes: readonly string[],
  options: { refresh: boolean; resource?: string | null },
): Promise<TokenResponse> {
  const now = app.clock.now()
  const iat = Math.floor(now / 1000)
  const access = await signJwt(app, {
    iss: app.config.publicUrl,
    sub: grant.subject,
    aud: options.resource ?? app.config.publicUrl,
    client_id: client.id,
    scope: scopes.join(' '),
    tenant: grant.tenant,
    iat,
    exp: iat + ACCESS_TOKEN_TTL_MS / 1000,
    jti: `${grant.id}.${randomBase62(12)}`,
  })
  const answer: TokenResponse = {
    access_token: access,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_MS / 1000,
    scope: scopes.join(' '),
  }
  if (options.refresh) {
    const refresh = `${REFRESH_TOKEN_PREFIX}${randomBase62(32)}`
    await app.db.insert(oauthRefreshTokens).values({
      id: newId(),
      tokenHash: sha256Hex(refresh),
      grantId: grant.id,
      createdAt: now,
      expiresAt: now + REFRESH_TOKEN_TTL_MS,
    })
    answer.refresh_token = refresh
  }
  return answer
}

async function revokeGrant(app: AppContext, grantId: string): Promise<void> {
  await app.db
    .update(oauthGrants)
    .set({ revokedAt: app.clock.now() })
    .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)))
}

const grantById = async (app: AppContext, id: string) =>
  (await app.db.select().from(oauthGrants).where(eq(oauthGrants.id, id)).limit(1))[0]

// --- authorization code -------------------------------------------------------------------------

/** After the user allowed it on the consent page: a grant and its code (single use, 10 minutes). */
export async function createAuthorizationCode(
  app: AppContext,
  input: {
    client: OAuthClientRow
    userId: string
    tenant: string
    scopes: readonly string[]
    redirectUri: string
    redirectUriGiven?: boolean
    codeChallenge: string
    resource: string | null
  },
): Promise<string> {
  const code = `${CODE_PREFIX}${randomBase62(32)}`
  const now = app.clock.now()
  await inTransaction(app.sqlite, async () => {
    const grantId = newId()
    await app.db.insert(oauthGrants).values({
      id: grantId,
      oauthClientId: input.client.id,
      subject: input.userId,
      tenant: input.tenant,
      scopes: [...input.scopes],
      resource: input.resource,
      createdAt: now,
    })
    await app.db.insert(oauthCodes).values({
      codeHash: sha256Hex(code),
      grantId,
      redirectUri: input.redirectUri,
      redirectUriGiven: input.redirectUriGiven ?? true,
      codeChallenge: input.codeChallenge,
      resource: input.resource,
      expiresAt: now + CODE_TTL_MS,
    })
  })
  return code
}

/** RFC 7636 §4.1: 43–128 unreserved characters. */
const VERIFIER_RE = /^[A-Za-z0-9\-._~]{43,128}$/

export async function exchangeCode(
  app: AppContext,
  client: OAuthClientRow,
  params: { code?: string; redirect_uri?: string; code_verifier?: string },
): Promise<TokenResponse> {
  if (!params.code) throw new OAuthError('invalid_request', 'code is required')
  if (!params.code_verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)')
  if (!VERIFIER_RE.test(params.code_verifier))
    throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 unreserved characters')
  // As for refresh tokens: a reused code revokes its grant, which must commit though the request fails.
  const outcome = await inTransaction(app.sqlite, async (): Promise<TokenResponse | OAuthError> => {
    const now = app.clock.now()
    const row = (
      await app.db
        .select()
        .from(oauthCodes)
        .where(eq(oauthCodes.codeHash, sha256Hex(params.code!)))
        .limit(1)
    )[0]
    if (!row) return new OAuthError('invalid_grant', 'The authorization code is not valid')
    const grant = (await grantById(app, row.grantId))!
    if (grant.oauthClientId !== client.id)
      return new OAuthError('invalid_grant', 'The authorization code was issued to another client')
    if (row.usedAt !== null) {
      // A code used twice: whoever holds it is not to be trusted, nor are the tokens it gave.
      await revokeGrant(app, grant.id)
      return new OAuthError('invalid_grant', 'The authorization code has already been used')
    }
    if (row.expiresAt <= now) return new OAuthError('invalid_grant', 'The authorization code has expired')
    if (grant.revokedAt !== null) return new OAuthError('invalid_grant', 'The grant has been revoked')
    // Repeated exactly if the authorization request named it; may be left out if it did not.
    const redirectUri = params.redirect_uri ?? (row.redirectUriGiven ? undefined : row.redirectUri)
    if (redirectUri !== row.redirectUri)
      return new OAuthError(
        'invalid_grant',
        'redirect_uri does not match the one of the authorization request',
      )
    const challenge = createHash('sha256').update(params.code_verifier!).digest('base64url')
    if (!safeEqual(challenge, row.codeChallenge))
      return new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge')
    await app.db.update(oauthCodes).set({ usedAt: now }).where(eq(oauthCodes.codeHash, row.codeHash))
    return await issue(app, client, grant, grant.scopes, { refresh: true, resource: row.resource })
  })
  if (outcome instanceof OAuthError) throw outcome
  return outcome
}

// --- refresh token ------------------------------------------------------------------------------

/** Scopes asked for with `scope`, which must all be within `allowed` (RFC 6749 §3.3, §6). */
function narrowed(scope: string | undefined, allowed: readonly string[]): string[] {
  if (scope === undefined || scope.trim() === '') return [...allowed]
  const asked = [...new Set(scope.trim().split(/\s+/))]
  const outside = asked.filter((s) => !allowed.includes(s))
  if (outside.length > 0)
    throw new OAuthError('invalid_scope', `Scope not allowed here: ${outside.join(' ')}`)
  return asked
}

export async function refresh(
  app: AppContext,
  client: OAuthClientRow,
  params: { refresh_token?: string; scope?: string },
): Promise<TokenResponse> {
  if (!params.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required')
  const hash = sha256Hex(params.refresh_token)
  // The reuse check revokes the grant and must commit even though the request is refused, so the
  // transaction returns the outcome and the error is thrown after it.
  const outcome = await inTransaction(app.sqlite, async (): Promise<TokenResponse | OAuthError> => {
    const now = app.clock.now()
    const row = (
      await app.db.select().from(oauthRefreshTokens).where(eq(oauthRefreshTokens.tokenHash, hash)).limit(1)
    )[0]
    if (!row) return new OAuthError('invalid_grant', 'The refresh token is not valid')
    const grant = (await grantById(app, row.grantId))!
    if (grant.oauthClientId !== client.id)
      return new OAuthError('invalid_grant', 'The refresh token was issued to another client')
    if (row.usedAt !== null) {
      await revokeGrant(app, grant.id)
      return new OAuthError(
        'invalid_grant',
        'The refresh token has already been used; every token of this grant is now revoked',
      )
    }
    if (grant.revokedAt !== null) return new OAuthError('invalid_grant', 'The grant has been revoked')
    if (row.expiresAt <= now) return new OAuthError('invalid_grant', 'The refresh token has expired')
    // The user who consented must still be able to give it: still a user, still in the
    // workspace, and the scopes still within their role (a demoted user's tokens shrink).
    const user = await loadIdentity(app.db, grant.subject)
    if (!user || !(await workspacesOf(app.db, user)).some((w) => w.id === grant.tenant)) {
      await revokeGrant(app, grant.id)
      return new OAuthError(
        'invalid_grant',
        'The user who allowed this no longer has access to the workspace',
      )
    }
    let scopes: string[]
    try {
      scopes = grantableScopes(user.role, narrowed(params.scope, grant.scopes)).allowed
    } catch (err) {
      return err as OAuthError
    }
    if (scopes.length === 0) {
      await revokeGrant(app, grant.id)
      return new OAuthError('invalid_grant', "The user's role no longer allows any scope of this grant")
    }
    await app.db.update(oauthRefreshTokens).set({ usedAt: now }).where(eq(oauthRefreshTokens.id, row.id))
    // The refreshed token keeps the audience the user consented to (RFC 8707).
    return await issue(app, client, grant, scopes, { refresh: true, resource: grant.resource })
  })
  if (outcome instanceof OAuthError) throw outcome
  return outcome
}

// --- client credentials -------------------------------------------------------------------------

export async function clientCredentials(
  app: AppContext,
  client: OAuthClientRow,
  params: { scope?: string },
): Promise<TokenResponse> {
  if (!client.confidential)
    throw new OAuthError('unauthorized_client', 'Only a confidential client may use client_credentials')
  const allowed = client.scopes.filter((s) => (CLIENT_CREDENTIALS_SCOPES as readonly string[]).includes(s))
  if (params.scope !== undefined && params.scope.trim() !== '') {
    const asked = params.scope.trim().split(/\s+/)
    const never = asked.filter((s) => !(CLIENT_CREDENTIALS_SCOPES as readonly string[]).includes(s))
    if (never.length > 0)
      throw new OAuthError(
        'invalid_scope',
        `client_credentials may request only ${CLIENT_CREDENTIALS_SCOPES.join(', ')}; not ${never.join(' ')}`,
      )
  }
  const scopes = narrowed(params.scope, allowed)
  if (scopes.length === 0)
    throw new OAuthError(
      'invalid_scope',
      'The client is registered for none of the client_credentials scopes',
    )
  // Never a token for no workspace (it would act platform-wide): with none registered and no
  // default one (an instance without clients), the client gets nothing.
  const tenant = client.clientId ?? (await defaultWorkspace(app))
  if (tenant === null)
    throw new OAuthError(
      'unauthorized_client',
      'The client is registered for no workspace and this server has no default one',
    )
  return await inTransaction(app.sqlite, async () => {
    const grant = (
      await app.db
        .insert(oauthGrants)
        .values({
          id: newId(),
          oauthClientId: client.id,
          subject: client.id,
          tenant,
          scopes,
          createdAt: app.clock.now(),
        })
        .returning()
    )[0]!
    return await issue(app, client, grant, scopes, { refresh: false })
  })
}

// --- JWT bearer with an ID-JAG (RFC 7523, draft-ietf-oauth-identity-assertion-authz-grant) ------

/**
 * An access token for the subject of an Identity Assertion JWT Authorization Grant from a trusted
 * issuer (HERALD_IDJAG_ISSUERS), verified by the agents' ID-JAG verifier. The assertion must be
 * for this client (its `client_id` claim, required); the workspace is its `aud_tenant` (a
 * Herald client id), else the client's workspace, else the default one (a client registered for
 * a workspace is held to it); the scopes are those asked for (or else the
 * client's), within the client's registration and the assertion's `scope` claim. No refresh
 * token: the client asks its identity provider for a fresh assertion instead. An assertion buys
 * one token: its issuer + `jti` are spent in the transaction that issues it, and a second
 * presentation is invalid_grant.
 */
export async function jwtBearer(
  app: AppContext,
  client: OAuthClientRow,
  params: { assertion?: string; scope?: string },
): Promise<TokenResponse> {
  if (!params.assertion) throw new OAuthError('invalid_request', 'assertion is required')
  let jag: Awaited<ReturnType<typeof verifyIdJag>>
  try {
    jag = await verifyIdJag(params.assertion, {
      audience: app.config.publicUrl,
      trustedIssuers: app.config.idjagIssuers,
      now: app.clock.now(),
    })
  } catch (err) {
    if (err instanceof IdJagError) throw new OAuthError('invalid_grant', err.message)
    throw err
  }
  // The assertion must name the client it was issued to: one without client_id could be
  // presented by any client the issuer's users ever met.
  if (jag.clientId === null) throw new OAuthError('invalid_grant', 'The assertion names no client_id')
  if (jag.clientId !== client.id)
    throw new OAuthError('invalid_grant', 'The assertion was issued to another client')
  const offered = client.scopes.filter(
    (s) => (OAUTH_SCOPES as readonly string[]).includes(s) && (jag.scopes === null || jag.scopes.includes(s)),
  )
  const scopes = narrowed(params.scope, offered)
  if (scopes.length === 0)
    throw new OAuthError('invalid_scope', "The assertion grants none of the client's scopes")
  let tenant: string | null
  if (jag.audTenant !== null) {
    tenant = parseId(jag.audTenant)
    if (
      !tenant ||
      !(await app.db.select({ id: clients.id }).from(clients).where(eq(clients.id, tenant)).limit(1))[0]
    )
      throw new OAuthError('invalid_grant', "The assertion's aud_tenant names no workspace of this server")
    // A client registered for one workspace gets tokens for that one only, as with client credentials.
    if (client.clientId !== null && tenant !== client.clientId)
      throw new OAuthError('invalid_grant', "The assertion's aud_tenant is not this client's workspace")
  } else tenant = client.clientId ?? (await defaultWorkspace(app))
  if (tenant === null)
    throw new OAuthError(
      'invalid_grant',
      'The assertion names no workspace (aud_tenant) and this server has none',
    )
  return await inTransaction(app.sqlite, async () => {
    if (!(await spendIdJag(app.db, jag, app.clock.now())))
      throw new OAuthError(
        'invalid_grant',
        'The assertion has already been used (its jti was presented before); ask the identity provider for a new one',
      )
    const grant = (
      await app.db
        .insert(oauthGrants)
        .values({
          id: newId(),
          oauthClientId: client.id,
          subject: `${jag.issuer}#${jag.subject}`,
          tenant,
          scopes,
          createdAt: app.clock.now(),
        })
        .returning()
    )[0]!
    return await issue(app, client, grant, scopes, { refresh: false })
  })
}

// --- revocation (RFC 7009) ----------------------------------------------------------------------

/**
 * Revokes a refresh token (its whole grant, access tokens included) or one access token. A token
 * that is unknown, already revoked or another client's is answered the same (200): no oracle.
 */
export async function revokeToken(app: AppContext, client: OAuthClientRow, token: string): Promise<void> {
  await inTransaction(app.sqlite, async () => {
    const refreshRow = (
      await app.db
        .select()
        .from(oauthRefreshTokens)
        .where(eq(oauthRefreshTokens.tokenHash, sha256Hex(token)))
        .limit(1)
    )[0]
    if (refreshRow) {
      const grant = (await grantById(app, refreshRow.grantId))!
      if (grant.oauthClientId === client.id) await revokeGrant(app, grant.id)
      return
    }
    const claims = await verifyJwt(app, token)
    if (!claims || claims.client_id !== client.id || typeof claims.jti !== 'string') return
    const exp = typeof claims.exp === 'number' ? claims.exp * 1000 : app.clock.now() + ACCESS_TOKEN_TTL_MS
    await app.db.insert(oauthRevokedTokens).values({ jti: claims.jti, expiresAt: exp }).onConflictDoNothing()
  })
}
