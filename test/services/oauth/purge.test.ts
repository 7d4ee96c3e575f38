import { describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { rawRows } from '../../../src/db/raw'
import { oauthGrants, users } from '../../../src/db/schema'
import { inTransaction } from '../../../src/db/transaction'
import { registerJobs } from '../../../src/jobs'
import { HOUR_MS } from '../../../src/lib/time'
import { findOAuthClient } from '../../../src/services/oauth/clients'
import {
  ACCESS_TOKEN_TTL_MS,
  CODE_TTL_MS,
  clientCredentials,
  createAuthorizationCode,
  exchangeCode,
  REFRESH_TOKEN_TTL_MS,
  refresh,
  revokeToken,
} from '../../../src/services/oauth/grants'
import { OAUTH_RETENTION_MS, PURGE_CHUNK } from '../../../src/services/oauth/purge'
import { createTestApp } from '../../helpers/app'
import { testClock } from '../../helpers/journey'

// The oauth.purge job on the injected clock: each kind of row stays until RETENTION after it
// expired (one millisecond before: still there; one after: gone), grants go once nothing of
// them is left, live rows are never touched, and a backlog larger than a chunk goes in one run.

const clock = testClock()
const t = await createTestApp({ clock })
registerJobs(t.ctx)
const purge = () => t.ctx.jobs.runNow('oauth.purge')

const REDIRECT = 'https://app.example/cb'
const VERIFIER = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~'

async function oauthClient(confidential: boolean) {
  const made = await t.call('POST', '/api/v1/oauth-clients', {
    body: {
      name: confidential ? 'Reporter' : 'App',
      redirect_uris: [REDIRECT],
      confidential,
      scopes: ['contacts:read'],
    },
  })
  expect(made.status).toBe(200)
  return (await findOAuthClient(t.ctx, made.body.data.oauth_client_id))!
}
const machine = await oauthClient(true)
const app = await oauthClient(false)
const userId = (await t.ctx.db.select({ id: users.id }).from(users).limit(1))[0]!.id

const count = async (table: string, grantId: string) =>
  (
    await rawRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT cast(count(*) as int) AS n FROM ${sql.raw(table)} WHERE ${sql.raw(table === 'oauth_grants' ? 'id' : 'grant_id')} = ${grantId}`,
    )
  )[0]!.n
const grantOf = (jwt: string) =>
  (JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).jti as string).split('.')[0]!
const contactsWith = async (token: string) =>
  (await t.call('GET', '/api/v1/contacts', { headers: { authorization: `Bearer ${token}` }, key: null }))
    .status

async function code() {
  return await createAuthorizationCode(t.ctx, {
    client: app,
    userId,
    tenant: t.defaultClientId,
    scopes: ['contacts:read'],
    redirectUri: REDIRECT,
    codeChallenge: createHash('sha256').update(VERIFIER).digest('base64url'),
    resource: null,
  })
}

describe('oauth.purge', () => {
  test('a client-credentials grant goes RETENTION after its token expired, not before', async () => {
    const issued = clock.t
    const token = (await clientCredentials(t.ctx, machine, {})).access_token
    const grant = grantOf(token)
    expect(await contactsWith(token)).toBe(200)
    await purge()
    expect(await count('oauth_grants', grant)).toBe(1)
    expect(await contactsWith(token)).toBe(200)

    clock.t = issued + ACCESS_TOKEN_TTL_MS + OAUTH_RETENTION_MS - 1
    await purge()
    expect(await count('oauth_grants', grant)).toBe(1)
    clock.t += 2
    await purge()
    expect(await count('oauth_grants', grant)).toBe(0)
    expect(await contactsWith(token)).toBe(401)
  })

  test('refresh tokens go RETENTION after they expired; the grant once its last one is gone', async () => {
    const first = await exchangeCode(t.ctx, app, {
      code: await code(),
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
    })
    const grant = grantOf(first.access_token)
    const firstAt = clock.t
    expect(await count('oauth_codes', grant)).toBe(1) // the spent code
    clock.t += 10 * 24 * HOUR_MS
    const second = await refresh(t.ctx, app, { refresh_token: first.refresh_token! })
    const secondAt = clock.t
    expect(await count('oauth_refresh_tokens', grant)).toBe(2) // the spent one is kept for reuse detection

    // The code went long ago; the first refresh token RETENTION after its expiry, the second later.
    clock.t = firstAt + REFRESH_TOKEN_TTL_MS + OAUTH_RETENTION_MS - 1
    await purge()
    expect(await count('oauth_codes', grant)).toBe(0)
    expect(await count('oauth_refresh_tokens', grant)).toBe(2)
    clock.t += 2
    await purge()
    expect(await count('oauth_refresh_tokens', grant)).toBe(1)
    expect(await count('oauth_grants', grant)).toBe(1)

    clock.t = secondAt + REFRESH_TOKEN_TTL_MS + OAUTH_RETENTION_MS + 1
    await purge()
    expect(await count('oauth_refresh_tokens', grant)).toBe(0)
    expect(await count('oauth_grants', grant)).toBe(0)
    expect(await contactsWith(second.access_token)).toBe(401)
  })

  test('a code never exchanged goes RETENTION after it expired, with its grant', async () => {
    const before = (await rawRows<{ id: string }>(t.ctx.db, sql`SELECT id FROM oauth_grants`)).length
    await code()
    const grant = (
      await rawRows<{ id: string }>(
        t.ctx.db,
        sql`SELECT grant_id AS id FROM oauth_codes WHERE used_at IS NULL`,
      )
    )[0]!.id
    const at = clock.t
    clock.t = at + CODE_TTL_MS + OAUTH_RETENTION_MS - 1
    await purge()
    expect(await count('oauth_codes', grant)).toBe(1)
    // The grant outlives its code by an access token's lifetime (no token was issued: harmless).
    clock.t = at + ACCESS_TOKEN_TTL_MS + OAUTH_RETENTION_MS + 1
    await purge()
    expect(await count('oauth_codes', grant)).toBe(0)
    expect(await count('oauth_grants', grant)).toBe(0)
    expect((await rawRows(t.ctx.db, sql`SELECT id FROM oauth_grants`)).length).toBe(before)
  })

  test('a revoked access token’s jti goes RETENTION after the token expired', async () => {
    const token = (await clientCredentials(t.ctx, machine, {})).access_token
    await revokeToken(t.ctx, machine, token)
    expect(await contactsWith(token)).toBe(401)
    const revoked = async () => (await rawRows(t.ctx.db, sql`SELECT jti FROM oauth_revoked_tokens`)).length
    expect(await revoked()).toBe(1)
    clock.t += ACCESS_TOKEN_TTL_MS + OAUTH_RETENTION_MS - 1000
    await purge()
    expect(await revoked()).toBe(1)
    clock.t += 2000
    await purge()
    expect(await revoked()).toBe(0)
  })

  test('live rows stay; a backlog over one chunk goes in one run of the job', async () => {
    const live = (await clientCredentials(t.ctx, machine, {})).access_token
    const old = clock.t - ACCESS_TOKEN_TTL_MS - OAUTH_RETENTION_MS - 1
    const rows = Array.from({ length: PURGE_CHUNK * 2 + 5 }, (_, i) => ({
      id: `01a00000-0000-7000-8000-${String(i).padStart(12, '0')}`,
      oauthClientId: machine.id,
      subject: machine.id,
      tenant: null,
      scopes: [],
      createdAt: old,
    }))
    await inTransaction(t.ctx.sqlite, async () => {
      for (let i = 0; i < rows.length; i += 500)
        await t.ctx.db.insert(oauthGrants).values(rows.slice(i, i + 500))
    })
    await purge()
    const left = (
      await rawRows<{ n: number }>(t.ctx.db, sql`SELECT cast(count(*) as int) AS n FROM oauth_grants`)
    )[0]!.n
    expect(left).toBe(1)
    expect(await count('oauth_grants', grantOf(live))).toBe(1)
    expect(await contactsWith(live)).toBe(200)
    expect(t.ctx.jobs.list().find((j) => j.name === 'oauth.purge')?.last_outcome).toBe('ok')
  })
})
