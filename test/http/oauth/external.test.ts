import { afterAll, describe, expect, test } from 'bun:test'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { BASE, createTestApp } from '../../helpers/app'
import { connectMcp, SDKS, serveApp } from '../../helpers/mcp'
import { freePort } from '../../helpers/ports'

// External identity provider mode (DESIGN §5): with HERALD_OAUTH_EXTERNAL_ISSUER and _JWKS_URL
// set, bearer JWTs that provider signed for Herald are accepted on REST and MCP like Herald's own
// access tokens. A local JWKS server plays the provider; every request goes over real HTTP.

const clock = { t: Date.UTC(2026, 2, 3, 9), now: () => clock.t }
const ISSUER = 'https://login.example.test'
const k1 = await generateKeyPair('ES256')
const k2 = await generateKeyPair('RS256')
const stranger = await generateKeyPair('ES256')

// The provider's JWKS: what it serves can be rotated; every fetch is counted.
type Served = { key: CryptoKey; kid: string; alg: string }
const provider = {
  keys: [{ key: k1.publicKey, kid: 'k1', alg: 'ES256' }] as Served[],
  fetches: 0,
}
const jwks = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch() {
    provider.fetches++
    const keys = await Promise.all(
      provider.keys.map(async (k) => ({ ...(await exportJWK(k.key)), kid: k.kid, alg: k.alg })),
    )
    return Response.json({ keys })
  },
})
const JWKS_URL = `http://127.0.0.1:${jwks.port}/jwks`
const MODE = { HERALD_OAUTH_EXTERNAL_ISSUER: ISSUER, HERALD_OAUTH_EXTERNAL_JWKS_URL: JWKS_URL }

const t = await createTestApp({ clock, env: MODE })
const http = serveApp(t.app)
afterAll(() => {
  http.stop()
  jwks.stop(true)
})

const acme = await t.client('Acme')
const globex = await t.client('Globex')
const paused = await t.client('Paused')
expect((await t.call('PATCH', `/api/v1/clients/${paused}`, { body: { status: 'suspended' } })).status).toBe(
  200,
)
for (const [client, email] of [
  [acme, 'ann@acme.test'],
  [globex, 'gus@globex.test'],
] as const)
  expect((await t.call('POST', `/api/v1/contacts?client_id=${client}`, { body: { email } })).status).toBe(200)

interface Signing {
  key?: CryptoKey | Uint8Array
  kid?: string
  alg?: string
  typ?: string
  iss?: string
  aud?: string
  /** Seconds from the clock's now; null: no exp claim. */
  ttl?: number | null
  /** null: no sub claim. */
  sub?: string | null
}

/** A provider access token for `acme` with `contacts:read`, signed now (the injected clock). */
function token(claims: Record<string, unknown> = {}, o: Signing = {}): Promise<string> {
  const now = Math.floor(clock.t / 1000)
  const jwt = new SignJWT({ scope: 'contacts:read', tenant: acme, ...claims })
    .setProtectedHeader({ alg: o.alg ?? 'ES256', kid: o.kid ?? 'k1', typ: o.typ ?? 'at+jwt' })
    .setIssuer(o.iss ?? ISSUER)
    .setAudience(o.aud ?? BASE)
    .setIssuedAt(now)
  if (o.sub !== null) jwt.setSubject(o.sub ?? 'user-7')
  if (o.ttl !== null) jwt.setExpirationTime(now + (o.ttl ?? 3600))
  return jwt.sign(o.key ?? k1.privateKey)
}

async function call(base: string, method: string, path: string, bearer: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${bearer}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null }
}
const rest = (method: string, path: string, bearer: string, body?: unknown) =>
  call(http.base, method, path, bearer, body)

const CHALLENGE = `Bearer error="invalid_token", resource_metadata="${BASE}/.well-known/oauth-protected-resource"`

/** DESIGN §4's 401: the error body with this message, the request id, and the challenge. */
function expectRefused(res: Awaited<ReturnType<typeof rest>>, message: string) {
  expect(res.status).toBe(401)
  expect(res.body.error).toEqual({
    code: 'UNAUTHORIZED',
    message,
    request_id: res.headers.get('x-request-id'),
  })
  expect(res.headers.get('www-authenticate')).toBe(CHALLENGE)
}

describe('a provider token on REST', () => {
  test('valid → 200, acting for its tenant with its scopes', async () => {
    const res = await rest('GET', '/api/v1/contacts', await token())
    expect(res.status).toBe(200)
    expect(res.body.data.map((c: { email: string }) => c.email)).toEqual(['ann@acme.test'])
    // The same token again is answered from what was verified, with no second key fetch.
    const fetches = provider.fetches
    expect((await rest('GET', '/api/v1/contacts', await token())).status).toBe(200)
    expect(provider.fetches).toBe(fetches)
  })

  test('a write scope writes in the tenant, whatever client_id is asked for', async () => {
    const bearer = await token({ scope: 'openid contacts:read contacts:write' })
    const res = await rest('POST', `/api/v1/contacts?client_id=${globex}`, bearer, { email: 'new@acme.test' })
    expect(res.status).toBe(200)
    expect(res.body.data.client_id).toBe(acme)
  })

  test('missing scope → 403 naming it, with the insufficient_scope challenge', async () => {
    const res = await rest('POST', '/api/v1/contacts', await token(), { email: 'no@acme.test' })
    expect(res.status).toBe(403)
    expect(res.body.error.code).toBe('FORBIDDEN')
    expect(res.body.error.details.required_scope).toBe('contacts:write')
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="contacts:write"',
    )
  })

  test('admin:* in the scope claim grants nothing: no admin operation', async () => {
    const res = await rest('GET', '/api/v1/api-keys', await token({ scope: 'admin:* contacts:read' }))
    expect(res.status).toBe(403)
    expect(res.body.error.code).toBe('FORBIDDEN')
  })

  test('a suspended tenant → 403, as its API keys (DESIGN §7 Client.status)', async () => {
    const res = await rest('GET', '/api/v1/contacts', await token({ tenant: paused }))
    expect(res.status).toBe(403)
    expect(res.body.error.code).toBe('FORBIDDEN')
    expect(res.body.error.message).toBe('The client this key belongs to is suspended')
  })

  const hs256 = new TextEncoder().encode('a shared secret of thirty-two by')
  const refusals: [string, () => Promise<string>, string][] = [
    [
      'wrong aud',
      () => token({}, { aud: 'https://other-api.example.test' }),
      "The access token's audience (aud) is not this server",
    ],
    [
      'signed by another key (same kid)',
      () => token({}, { key: stranger.privateKey }),
      "The access token is not signed by a key of the identity provider's JWKS",
    ],
    [
      'a kid the provider does not have',
      () => token({}, { key: stranger.privateKey, kid: 'made-up' }),
      "The access token is not signed by a key of the identity provider's JWKS",
    ],
    ['no exp claim', () => token({}, { ttl: null }), 'The access token has no exp claim (required)'],
    ['no sub claim', () => token({}, { sub: null }), 'The access token has no sub claim (required)'],
    ['an empty sub', () => token({}, { sub: '' }), 'The access token has no subject (sub)'],
    ['already expired', () => token({}, { ttl: -60 }), 'The access token has expired'],
    [
      'no tenant claim',
      () => token({ tenant: undefined }),
      'The access token has no tenant claim (the id of the Herald client it acts for)',
    ],
    [
      'tenant not an id',
      () => token({ tenant: 'acme' }),
      "The access token's tenant claim is not a Herald client id",
    ],
    [
      'tenant not a client',
      () => token({ tenant: '0190d6a2-0000-7000-8000-000000000000' }),
      "The access token's tenant names no client of this server",
    ],
    [
      'no scope claim',
      () => token({ scope: undefined }),
      'The access token has no scope claim (space-separated scopes)',
    ],
    [
      'typ of an ID-JAG',
      () => token({}, { typ: 'oauth-id-jag+jwt' }),
      "The access token's type (typ oauth-id-jag+jwt) is not an access token",
    ],
    [
      'typ of something else',
      () => token({}, { typ: 'dpop+jwt' }),
      "The access token's type (typ dpop+jwt) is not an access token",
    ],
    [
      'alg HS256',
      () => token({}, { alg: 'HS256', key: hs256 }),
      'The access token uses an algorithm that is not accepted',
    ],
  ]
  for (const [name, make, message] of refusals)
    test(`${name} → 401: ${message}`, async () => {
      const bearer = await make()
      expectRefused(await rest('GET', '/api/v1/contacts', bearer), message)
      // Asked again, it is judged again and refused again with the same words.
      expectRefused(await rest('GET', '/api/v1/contacts', bearer), message)
    })

  test('not valid yet (nbf) → 401; judged afresh, it is accepted once nbf has come', async () => {
    const bearer = await token({ nbf: Math.floor(clock.t / 1000) + 120 })
    expectRefused(await rest('GET', '/api/v1/contacts', bearer), 'The access token is not valid yet')
    clock.t += 120_000
    expect((await rest('GET', '/api/v1/contacts', bearer)).status).toBe(200)
  })

  test('expiry is judged on the injected clock for a token already verified', async () => {
    const bearer = await token({}, { ttl: 60 })
    expect((await rest('GET', '/api/v1/contacts', bearer)).status).toBe(200)
    clock.t += 60_000 + 29_000 // within the 30 s tolerance of a provider's clock
    expect((await rest('GET', '/api/v1/contacts', bearer)).status).toBe(200)
    clock.t += 2000
    expectRefused(await rest('GET', '/api/v1/contacts', bearer), 'The access token has expired')
  })

  test('an iss other than the provider is not the provider’s: 401 like any unknown token', async () => {
    const res = await rest('GET', '/api/v1/contacts', await token({}, { iss: 'https://evil.example.test' }))
    expectRefused(res, 'The API key is not valid')
  })
})

describe('a provider token on /mcp/v1', () => {
  for (const sdk of SDKS)
    test(`${sdk}: tools/list shows only what contacts:read allows, and list_contacts sees the tenant`, async () => {
      const mcp = await connectMcp(sdk, http.url, await token())
      try {
        const names = (await mcp.listTools()).tools.map((x: { name: string }) => x.name)
        expect(names).toContain('list_contacts')
        expect(names).not.toContain('create_contact')
        expect(names).not.toContain('list_journeys')
        expect(names).not.toContain('list_api_keys')
        const listed = await mcp.callTool({ name: 'list_contacts', arguments: {} })
        const emails = listed.structuredContent.data.map((c: { email: string }) => c.email)
        expect(emails).toContain('ann@acme.test')
        expect(emails).not.toContain('gus@globex.test')
      } finally {
        await mcp.close()
      }
    })

  test('a refused token → 401 with the MCP resource’s challenge and the precise message', async () => {
    const res = await fetch(http.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await token({}, { aud: 'https://other-api.example.test' })}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp/v1"`,
    )
    const body = await res.json()
    expect(body.error.code).toBe('UNAUTHORIZED')
    expect(body.error.message).toBe("The access token's audience (aud) is not this server")
  })
})

describe('discovery', () => {
  test('protected-resource metadata (REST and MCP) lists Herald and the provider as authorization servers', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp/v1',
    ]) {
      const doc = await (await fetch(http.base + path)).json()
      expect(doc.authorization_servers).toEqual([BASE, ISSUER])
    }
  })
})

// Apps of their own: the provider's JWKS down or broken, a configured audience, the mode off.
// An error page is never taken for keys, even one whose body is a key set.
const broken = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: async () =>
    Response.json(
      { keys: [{ ...(await exportJWK(k1.publicKey)), kid: 'k1', alg: 'ES256' }] },
      { status: 500 },
    ),
})
const others = {
  down: await createTestApp({
    clock,
    env: { ...MODE, HERALD_OAUTH_EXTERNAL_JWKS_URL: `http://127.0.0.1:${freePort()}/jwks` },
  }),
  broken: await createTestApp({
    clock,
    env: { ...MODE, HERALD_OAUTH_EXTERNAL_JWKS_URL: `http://127.0.0.1:${broken.port}/jwks` },
  }),
  audience: await createTestApp({ clock, env: { ...MODE, HERALD_OAUTH_EXTERNAL_AUDIENCE: 'api://herald' } }),
  off: await createTestApp({ clock }),
}
const served = Object.fromEntries(Object.entries(others).map(([name, app]) => [name, serveApp(app.app)]))
afterAll(() => {
  for (const s of Object.values(served)) s.stop()
  broken.stop(true)
})
/** A REST read on one of the other apps with a provider token for its default workspace. */
async function readOn(name: keyof typeof others, o: Signing = {}) {
  const bearer = await token({ tenant: others[name].defaultClientId }, o)
  return call(served[name]!.base, 'GET', '/api/v1/contacts', bearer)
}

/** k1 → k2 at the provider: picked up once the cooldown allows a refetch. */
async function rotation() {
  let fetches = provider.fetches
  const before = await token()
  expect((await rest('GET', '/api/v1/contacts', before)).status).toBe(200)
  expect(provider.fetches).toBe(fetches + 1)

  // The provider rotates: k1 withdrawn, k2 (RS256) in.
  provider.keys = [{ key: k2.publicKey, kid: 'k2', alg: 'RS256' }]
  const after = await token({}, { key: k2.privateKey, kid: 'k2', alg: 'RS256' })
  // Right after a fetch an unknown kid does not make Herald call the provider again (made-up
  // kids cannot turn requests into fetches).
  fetches = provider.fetches
  expectRefused(
    await rest('GET', '/api/v1/contacts', after),
    "The access token is not signed by a key of the identity provider's JWKS",
  )
  expect(provider.fetches).toBe(fetches)
  // 30 s later (injected clock) the new kid refetches the keys and is found.
  clock.t += 30_000
  expect((await rest('GET', '/api/v1/contacts', after)).status).toBe(200)
  expect(provider.fetches).toBe(fetches + 1)
  // A token verified before the rotation stays verified until its exp (as Herald's own do).
  expect((await rest('GET', '/api/v1/contacts', before)).status).toBe(200)
}

describe('the provider’s keys', () => {
  test('JWKS server down → 401 saying the keys could not be fetched', async () => {
    expectRefused(await readOn('down'), "The identity provider's keys (JWKS) could not be fetched")
  })

  test('a JWKS answering HTTP 500 (with keys in its body) → 401 saying the keys could not be fetched', async () => {
    expectRefused(await readOn('broken'), "The identity provider's keys (JWKS) could not be fetched")
  })

  test('a key rotation (new kid) is picked up without a restart, once 30 s passed since the last fetch', async () => {
    clock.t += 11 * 60_000 // past the keys' 10-minute max age: the next token refetches them
    try {
      await rotation()
    } finally {
      provider.keys = [{ key: k1.publicKey, kid: 'k1', alg: 'ES256' }]
    }
  })
})

describe('HERALD_OAUTH_EXTERNAL_AUDIENCE', () => {
  test('names the one aud accepted (Herald’s own URL then refused)', async () => {
    expect((await readOn('audience', { aud: 'api://herald' })).status).toBe(200)
    expectRefused(await readOn('audience'), "The access token's audience (aud) is not this server")
  })
})

describe('mode off', () => {
  test('a provider-signed token is 401 like any unknown token, and the provider is never called', async () => {
    const fetches = provider.fetches
    expectRefused(await readOn('off'), 'The API key is not valid')
    expect(provider.fetches).toBe(fetches)
    const doc = await (await fetch(`${served.off!.base}/.well-known/oauth-protected-resource`)).json()
    expect(doc.authorization_servers).toEqual([BASE])
  })

  test('no request hook at all is installed (with the mode on, exactly one)', () => {
    expect(others.off.app.event.request ?? []).toHaveLength(0)
    expect(t.app.event.request ?? []).toHaveLength(1)
  })
})
