import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { SignJWT } from 'jose'
import { rawRows } from '../../../src/db/raw'
import { oauthUsedAssertions } from '../../../src/db/schema'
import { BASE, createTestApp } from '../../helpers/app'
import { serveIdpKeys } from '../../helpers/idp'

// An ID-JAG buys one thing (DESIGN §5): one access token at the JWT-bearer grant, or one agent
// key at /agent/auth/claim. Its issuer + jti are spent in the transaction that issues it; the
// same assertion (or another with the same issuer and jti) presented again while it could still
// verify is refused at either door — invalid_grant at the token endpoint (RFC 6749 §5.2), 401
// UNAUTHORIZED with details.reason at claim. An assertion without a jti, or living longer than
// an hour, is refused before anything is spent: the store must stay bounded.

const clock = { t: Date.UTC(2026, 2, 3, 9), now: () => clock.t }
const nowS = () => Math.floor(clock.t / 1000)
const keys = await serveIdpKeys()
const ISSUER = 'https://idp.example.test'
// A second trusted issuer with the same keys: only the issuer differs.
const ISSUER_2 = 'https://idp-two.example.test'

const t = await createTestApp({
  clock,
  env: {
    HERALD_IDJAG_ISSUERS: `${ISSUER}=${keys.jwksUrl},${ISSUER_2}=${keys.jwksUrl}`,
  },
})
const created = await t.call('POST', '/api/v1/oauth-clients', {
  body: {
    name: 'Agent app',
    redirect_uris: [],
    confidential: true,
    scopes: ['contacts:read', 'contacts:write'],
  },
})
const { oauth_client_id: clientId, client_secret: secret } = created.body.data

interface JagOptions {
  iss?: string
  /** null: no jti claim at all. */
  jti?: unknown
  iat?: number
  /** null: no exp claim at all. */
  exp?: number | null
}
async function jag(o: JagOptions = {}, claims: Record<string, unknown> = {}) {
  const iat = o.iat ?? nowS()
  const body: Record<string, unknown> = {
    client_id: clientId,
    scope: 'contacts:read contacts:write',
    ...claims,
  }
  if (o.jti !== null) body.jti = o.jti ?? Bun.randomUUIDv7()
  if (o.exp !== null) body.exp = o.exp ?? iat + 300
  return new SignJWT(body)
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'oauth-id-jag+jwt' })
    .setIssuer(o.iss ?? ISSUER)
    .setSubject('user-42')
    .setAudience(BASE)
    .setIssuedAt(iat)
    .sign(keys.privateKey)
}

async function token(assertion: string, fields: Record<string, string> = {}) {
  const res = await t.app.handle(
    new Request(`${BASE}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion,
        ...fields,
      }),
    }),
  )
  return { status: res.status, body: await res.json() }
}

let lastIp = 0
const agent = (path: string, body: unknown) =>
  t.call('POST', `/agent/auth/${path}`, {
    key: null,
    body,
    headers: { 'x-forwarded-for': `198.19.${(++lastIp >> 8) & 255}.${lastIp & 255}` },
  })
async function registration() {
  const r = await agent('register', {
    client_name: 'Replay agent',
    identity_type: 'identity_assertion',
    scopes: ['contacts:read'],
  })
  expect(r.status).toBe(200)
  return r.body.data.registration_id as string
}
const claim = async (identity_assertion: string) =>
  agent('claim', { registration_id: await registration(), identity_assertion })

const grantsOf = async (subject: string) =>
  (
    await rawRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT cast(count(*) as int) AS n FROM oauth_grants WHERE subject = ${subject}`,
    )
  )[0]!.n
const CHALLENGE = `Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource"`

function expectReplayAtToken(res: { status: number; body: unknown }) {
  expect(res.status).toBe(400)
  expect(res.body).toEqual({
    error: 'invalid_grant',
    error_description: expect.stringContaining('already been used'),
  })
}
function expectReplayAtClaim(r: Awaited<ReturnType<typeof claim>>) {
  expect(r.status).toBe(401)
  expect(r.body.error.code).toBe('UNAUTHORIZED')
  expect(r.body.error.details).toEqual({ reason: 'replayed' })
  expect(r.headers.get('www-authenticate')).toBe(CHALLENGE)
}

describe('replay at the token endpoint (JWT-bearer grant)', () => {
  test('the same assertion twice: a token, then invalid_grant and no second grant', async () => {
    const assertion = await jag()
    const first = await token(assertion)
    expect(first.status).toBe(200)
    expect(await grantsOf(`${ISSUER}#user-42`)).toBeGreaterThan(0)
    const before = await grantsOf(`${ISSUER}#user-42`)
    expectReplayAtToken(await token(assertion))
    expect(await grantsOf(`${ISSUER}#user-42`)).toBe(before)
  })

  test('another assertion with the same issuer and jti is the same assertion: refused', async () => {
    const jti = Bun.randomUUIDv7()
    expect((await token(await jag({ jti }))).status).toBe(200)
    expectReplayAtToken(await token(await jag({ jti }, { scope: 'contacts:write' })))
  })

  test('the same jti from another issuer is another assertion: accepted', async () => {
    const jti = Bun.randomUUIDv7()
    expect((await token(await jag({ jti }))).status).toBe(200)
    expect((await token(await jag({ jti, iss: ISSUER_2 }))).status).toBe(200)
  })

  test('a refused exchange spends nothing: the assertion still buys its token afterwards', async () => {
    const assertion = await jag()
    const refused = await token(assertion, { scope: 'journeys:read' })
    expect(refused.body.error).toBe('invalid_scope')
    expect((await token(assertion)).status).toBe(200)
  })

  test('once the first assertion expired (+30 s tolerance), its jti may be used again by a new one', async () => {
    const jti = Bun.randomUUIDv7()
    expect((await token(await jag({ jti }))).status).toBe(200)
    const start = clock.t
    try {
      // Still within exp + tolerance: a fresh assertion with that jti is a replay.
      clock.t = start + 300_000 + 29_000
      expectReplayAtToken(await token(await jag({ jti })))
      clock.t = start + 300_000 + 31_000
      expect((await token(await jag({ jti }))).status).toBe(200)
    } finally {
      clock.t = start
    }
  })
})

describe('replay at agent claim', () => {
  test('an assertion that claimed one registration cannot claim another; that one stays pending', async () => {
    const assertion = await jag()
    expect((await claim(assertion)).status).toBe(200)
    const again = await claim(assertion)
    expectReplayAtClaim(again)
    const pending = (
      await rawRows<{ n: number }>(
        t.ctx.db,
        sql`SELECT cast(count(*) as int) AS n FROM agent_registrations WHERE status = 'pending'`,
      )
    )[0]!.n
    expect(pending).toBeGreaterThan(0)
  })

  test('one store for both doors: spent at the token endpoint → refused at claim, and back', async () => {
    const viaToken = await jag()
    expect((await token(viaToken)).status).toBe(200)
    expectReplayAtClaim(await claim(viaToken))

    const viaClaim = await jag()
    expect((await claim(viaClaim)).status).toBe(200)
    expectReplayAtToken(await token(viaClaim))
  })

  test('a claim refused for another reason spends nothing', async () => {
    // Granting none of the requested scopes: 403, rolled back with the spend.
    const assertion = await jag({}, { scope: 'journeys:read' })
    expect((await claim(assertion)).status).toBe(403)
    expect((await token(await jag())).status).toBe(200)
    const rows = await t.ctx.db.select().from(oauthUsedAssertions)
    const spentJtis = new Set(rows.map((r) => r.jti))
    const jti = JSON.parse(Buffer.from(assertion.split('.')[1]!, 'base64url').toString()).jti
    expect(spentJtis.has(jti)).toBe(false)
  })
})

describe('what the store needs: a jti, and an exp within the hour', () => {
  const rows: [string, () => Promise<string>][] = [
    ['no jti', () => jag({ jti: null })],
    ['a numeric jti', () => jag({ jti: 42 })],
    ['an empty jti', () => jag({ jti: '' })],
    ['no exp', () => jag({ exp: null })],
    ['exp more than an hour after iat', () => jag({ exp: nowS() + 3601 })],
    // iat two hours ahead (jose does not judge iat without maxTokenAge): exp − iat is short, but
    // exp is more than an hour (and the tolerance) away.
    ['iat and exp in the far future', () => jag({ iat: nowS() + 7200, exp: nowS() + 7500 })],
  ]
  for (const [name, make] of rows) {
    test(`${name}: invalid_grant at the token endpoint`, async () => {
      const res = await token(await make())
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) })
    })
    test(`${name}: 401 invalid_claims at claim`, async () => {
      const r = await claim(await make())
      expect(r.status).toBe(401)
      expect(r.body.error.details).toEqual({ reason: 'invalid_claims' })
    })
  }

  test('exactly an hour is accepted at both doors', async () => {
    expect((await token(await jag({ exp: nowS() + 3600 }))).status).toBe(200)
    expect((await claim(await jag({ exp: nowS() + 3600 }))).status).toBe(200)
  })
})
