import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { clients } from './clients'

// Herald's OAuth 2.1 authorization server. Secrets (client secrets, codes, refresh
// tokens) are stored as SHA-256 only; the signing key's private half is encrypted with the
// instance secret key, so a copy of the database alone cannot mint tokens.

/** The keys access tokens are signed with; the newest is used, all are published in the JWKS. */
export const oauthSigningKeys = sqliteTable('oauth_signing_keys', {
  /** The JWK `kid`. */
  id: text('id').primaryKey(),
  alg: text('alg').notNull(),
  publicJwk: text('public_jwk', { mode: 'json' }).$type<Record<string, string>>().notNull(),
  /** PKCS#8 PEM, encrypted (lib/crypto encryptSecret). */
  privateKey: text('private_key').notNull(),
  createdAt: integer('created_at').notNull(),
})

export const OAUTH_CLIENT_SOURCES = ['operator', 'dynamic', 'metadata'] as const

/** Registered OAuth clients: by an operator (/api/v1/oauth-clients) or dynamically (RFC 7591). */
export const oauthClients = sqliteTable(
  'oauth_clients',
  {
    /** Also the OAuth `client_id` (`oauth_client_id` in the REST API, where client_id is the workspace). */
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** The workspace client-credentials tokens are for; null = the default workspace. */
    clientId: text('client_id').references(() => clients.id),
    redirectUris: text('redirect_uris', { mode: 'json' }).$type<string[]>().notNull(),
    confidential: integer('confidential', { mode: 'boolean' }).notNull(),
    secretHash: text('secret_hash'),
    /** The most it may be granted (a subset of the OAuth scopes). */
    scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
    source: text('source', { enum: OAUTH_CLIENT_SOURCES }).notNull(),
    createdAt: integer('created_at').notNull(),
    deletedAt: integer('deleted_at'),
  },
  (t) => [index('oauth_clients_client_idx').on(t.clientId)],
)

export type OAuthClientRow = typeof oauthClients.$inferSelect

/**
 * One grant: what a user allowed a client (or a client-credentials issuance). Every access and
 * refresh token belongs to one; revoking it (refresh-token reuse, revocation) ends them all.
 */
export const oauthGrants = sqliteTable(
  'oauth_grants',
  {
    id: text('id').primaryKey(),
    oauthClientId: text('oauth_client_id')
      .notNull()
      .references(() => oauthClients.id),
    /** The user id, or the OAuth client id for client credentials. */
    subject: text('subject').notNull(),
    /** The workspace (`tenant` claim). */
    tenant: text('tenant').references(() => clients.id),
    scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
    /** The RFC 8707 resource of the authorization request: every token of the grant's `aud`. */
    resource: text('resource'),
    createdAt: integer('created_at').notNull(),
    revokedAt: integer('revoked_at'),
  },
  (t) => [index('oauth_grants_client_idx').on(t.oauthClientId)],
)

/** Authorization codes: single use, 10 minutes, bound to the redirect URI and PKCE challenge. */
export const oauthCodes = sqliteTable('oauth_codes', {
  codeHash: text('code_hash').primaryKey(),
  grantId: text('grant_id')
    .notNull()
    .references(() => oauthGrants.id),
  redirectUri: text('redirect_uri').notNull(),
  /** Whether the authorization request named redirect_uri (else the client's only one was used):
   * only then must the token request repeat it (OAuth 2.1 §4.1.3). */
  redirectUriGiven: integer('redirect_uri_given', { mode: 'boolean' }).notNull().default(true),
  codeChallenge: text('code_challenge').notNull(),
  resource: text('resource'),
  expiresAt: integer('expires_at').notNull(),
  usedAt: integer('used_at'),
})

/** Refresh tokens: each use rotates it (used_at set, a new one issued); a used one presented again revokes the grant. */
export const oauthRefreshTokens = sqliteTable(
  'oauth_refresh_tokens',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    grantId: text('grant_id')
      .notNull()
      .references(() => oauthGrants.id),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
  },
  (t) => [
    uniqueIndex('oauth_refresh_tokens_hash_idx').on(t.tokenHash),
    index('oauth_refresh_tokens_grant_idx').on(t.grantId),
  ],
)

/** Access tokens revoked one by one (RFC 7009), kept until they would have expired anyway. */
export const oauthRevokedTokens = sqliteTable('oauth_revoked_tokens', {
  jti: text('jti').primaryKey(),
  expiresAt: integer('expires_at').notNull(),
})

/**
 * ID-JAG assertions already exchanged (JWT-bearer grant, agent claim), by issuer and `jti`: the
 * same assertion presented again is refused while it could still verify. Each row is written in
 * the transaction that spends the assertion and lives until the assertion's `exp` (plus the
 * verifier's clock tolerance); verification caps that at an hour, so the table holds at most an
 * hour of assertions. The oauth.purge job deletes rows past expires_at.
 */
export const oauthUsedAssertions = sqliteTable(
  'oauth_used_assertions',
  {
    issuer: text('issuer').notNull(),
    jti: text('jti').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.issuer, t.jti] })],
)
