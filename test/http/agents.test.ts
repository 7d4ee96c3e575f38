import { afterAll, describe, expect, test } from 'bun:test'
import { networkInterfaces } from 'node:os'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { withActor } from '../../src/context'
import { agentRegistrations } from '../../src/db/schema'
import { toPrefixedId } from '../../src/lib/ids'
import { systemActor } from '../../src/services/actors/actor'
import {
  approveRegistrationVerb,
  denyRegistrationVerb,
  purgeRegistrationsVerb,
} from '../../src/services/agents/verbs'
import { invoke } from '../../src/services/verbs/invoke'
import { BASE, type CallResult, createTestApp, type TestApp } from '../helpers/app'
import { answerOf, connectMcp, SDKS, serveApp } from '../helpers/mcp'
import { scenarios } from '../helpers/scenarios'

// DESIGN §5 "Agent registration": register → (approval) → claim once → an ordinary API key;
// revoke by presenting it. Real HTTP through the app; ID-JAGs signed by a test issuer whose
// JWKS a local HTTP server serves.

const HOUR = 3_600_000
const clock = { t: Date.UTC(2026, 2, 3, 9), now: () => clock.t }

// The trusted test issuer, and one that is not trusted (its keys served too, so only trust differs).
const trusted = await generateKeyPair('ES256')
const stranger = await generateKeyPair('ES256')
const jwks = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const key = new URL(req.url).pathname.endsWith('/stranger/jwks') ? stranger : trusted
    return Response.json({ keys: [{ ...(await exportJWK(key.publicKey)), kid: 'k1', alg: 'ES256' }] })
  },
})
afterAll(() => jwks.stop(true))
const ISSUER = 'https://idp.example.test'
const STRANGER = 'https://rogue.example.test'

const t = await createTestApp({
  clock,
  // A path of this file's own: issuer key sets are cached per URL for the process.
  env: { HERALD_IDJAG_ISSUERS: `${ISSUER}=http://127.0.0.1:${jwks.port}/${crypto.randomUUID()}/jwks` },
})
const system = () => withActor(t.ctx, systemActor('test'), 'test')

// Each call from its own address unless one is given: the per-IP buckets are tested on purpose only.
let lastIp = 0
const nextIp = () => `198.18.${(++lastIp >> 8) & 255}.${lastIp & 255}`
const agent = (path: string, body: unknown, ip = nextIp()) =>
  t.call('POST', `/agent/auth/${path}`, { key: null, body, headers: { 'x-forwarded-for': ip } })

const register = async (body: Record<string, unknown> = {}) => {
  const r = await agent('register', {
    client_name: 'Claude helper',
    identity_type: 'anonymous',
    scopes: ['contacts:read', 'contacts:write', 'lists:read'],
    ...body,
  })
  expect(r.status).toBe(200)
  return r.body.data as {
    registration_id: string
    status: string
    scopes: string[]
    client_id: string | null
  }
}
const recordOf = async (handle: string) =>
  (await t.ctx.db.select().from(agentRegistrations)).find(
    (r) => r.handleHash === new Bun.CryptoHasher('sha256').update(handle).digest('hex'),
  )!
const claim = (registration_id: string, identity_assertion?: string) =>
  agent('claim', identity_assertion ? { registration_id, identity_assertion } : { registration_id })
const expectState = (r: CallResult, status: string) => {
  expect(r.status).toBe(409)
  expect(r.body.error.code).toBe('INVALID_STATE')
  expect(r.body.error.details).toEqual({ status, allowed_from: ['approved'] })
}

describe('anonymous: register → pending → operator approves → claim once → key → revoke', () => {
  test('the whole life of an agent key', async () => {
    const reg = await register()
    expect(reg.registration_id).toMatch(/^reg_[0-9A-Za-z]{32,}$/)
    expect(reg).toMatchObject({
      status: 'pending',
      client_name: 'Claude helper',
      identity_type: 'anonymous',
      scopes: ['contacts:read', 'contacts:write', 'lists:read'],
      client_id: null,
      expires_at: new Date(clock.t + 24 * HOUR).toISOString(),
    })
    // Only the hash is stored.
    expect(JSON.stringify(await t.ctx.db.select().from(agentRegistrations))).not.toContain(
      reg.registration_id,
    )

    expectState(await claim(reg.registration_id), 'pending')

    // The operator picks the client and trims the scopes (the portal calls this verb).
    const acme = await t.client('Acme')
    await invoke(approveRegistrationVerb, system(), {
      id: (await recordOf(reg.registration_id)).id,
      client_id: acme,
      scopes: ['contacts:read'],
    })

    const claimed = await claim(reg.registration_id)
    expect(claimed.status).toBe(200)
    const cred = claimed.body.data
    expect(cred).toMatchObject({ scopes: ['contacts:read'], client_id: acme, identity_type: 'anonymous' })
    expect(cred.credential).toMatch(/^hrld_/)

    // Exactly once.
    expectState(await claim(reg.registration_id), 'claimed')

    // An ordinary key: works on REST with exactly the approved scopes, in its client.
    expect((await t.call('GET', '/api/v1/contacts', { key: cred.credential })).status).toBe(200)
    const write = await t.call('POST', '/api/v1/contacts', {
      key: cred.credential,
      body: { email: 'a@example.com' },
    })
    expect(write.status).toBe(403)
    expect(write.body.error.details.required_scope).toBe('contacts:write')
    // Listed (and revocable) with the other keys, marked as an agent's, tier standard.
    const listed = (await t.call('GET', `/api/v1/api-keys?client_id=${acme}`)).body.data
    expect(listed.find((k: { id: string }) => k.id === cred.key_id)).toMatchObject({
      agent: true,
      tier: 'standard',
      scopes: ['contacts:read'],
      name: 'Claude helper',
    })
    const plain = (await t.call('GET', '/api/v1/api-keys')).body.data.find(
      (k: { agent: boolean }) => !k.agent,
    )
    expect(plain.agent).toBe(false)

    const revoked = await agent('revoke', { credential: cred.credential })
    expect(revoked.status).toBe(200)
    expect(revoked.body).toEqual({ data: { revoked: true } })
    const after = await t.call('GET', '/api/v1/contacts', { key: cred.credential })
    expect(after.status).toBe(401)
    expect(after.body.error.code).toBe('UNAUTHORIZED')
  })

  test('revoke answers the same for an unknown, a revoked and a malformed credential', async () => {
    for (const credential of ['hrld_nothing', 'not-a-key', await t.key({ scopes: ['lists:read'] })]) {
      const r = await agent('revoke', { credential })
      expect(r.status).toBe(200)
      expect(r.body).toEqual({ data: { revoked: true } })
    }
  })

  test('a denied registration cannot be claimed; deny after claim is refused', async () => {
    const reg = await register()
    await invoke(denyRegistrationVerb, system(), { id: (await recordOf(reg.registration_id)).id })
    expectState(await claim(reg.registration_id), 'denied')
    await expect(
      invoke(denyRegistrationVerb, system(), { id: (await recordOf(reg.registration_id)).id }),
    ).rejects.toMatchObject({ code: 'INVALID_STATE' })
  })

  test('approving scopes that were not requested, or an unknown client, is 422', async () => {
    const reg = await register({ scopes: ['lists:read'] })
    const id = (await recordOf(reg.registration_id)).id
    await expect(
      invoke(approveRegistrationVerb, system(), {
        id,
        client_id: t.defaultClientId,
        scopes: ['contacts:read'],
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    await expect(
      invoke(approveRegistrationVerb, system(), {
        id,
        client_id: Bun.randomUUIDv7(),
        scopes: ['lists:read'],
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
  })

  test('a handle expires after 24 hours: claim is 404 like an unknown one', async () => {
    const reg = await register()
    await invoke(approveRegistrationVerb, system(), {
      id: (await recordOf(reg.registration_id)).id,
      client_id: t.defaultClientId,
      scopes: ['lists:read'],
    })
    clock.t += 24 * HOUR
    const r = await claim(reg.registration_id)
    expect(r.status).toBe(404)
    expect(r.body.error.code).toBe('NOT_FOUND')
  })

  test('the agents.purge job deletes expired registrations never claimed, and keeps claimed ones', async () => {
    const statuses = async () => (await t.ctx.db.select().from(agentRegistrations)).map((r) => r.status)
    expect(await statuses()).toContain('claimed')
    const before = (await statuses()).length
    const fresh = await register()
    const { removed } = await invoke(purgeRegistrationsVerb, system(), {})
    // Everything registered so far is past its 24 h (the clock moved a day) except the claimed one.
    expect(removed).toBe(before - 1)
    expect((await statuses()).sort()).toEqual(['claimed', 'pending'])
    expect((await recordOf(fresh.registration_id)).status).toBe('pending')
  })
})

describe('bad input', () => {
  const valid = { client_name: 'x', identity_type: 'anonymous', scopes: ['contacts:read'] }
  scenarios(
    {
      ...t,
      call: (method, path, o) =>
        t.call(method, path, { ...o, headers: { ...o?.headers, 'x-forwarded-for': nextIp() } }),
    } as TestApp,
    { method: 'POST', path: '/agent/auth/register', key: () => null },
    [
      {
        name: 'unknown scope',
        body: { ...valid, scopes: ['contacts:read', 'root'] },
        status: 422,
        code: 'VALIDATION_FAILED',
        field: 'scopes[1]',
      },
      {
        name: 'identity_type other than the two',
        body: { ...valid, identity_type: 'oauth' },
        status: 422,
        field: 'identity_type',
      },
      { name: 'no scopes', body: { ...valid, scopes: [] }, status: 422, field: 'scopes' },
      {
        name: 'no client_name',
        body: { identity_type: 'anonymous', scopes: ['lists:read'] },
        status: 422,
        field: 'client_name',
      },
      { name: 'unknown member', body: { ...valid, redirect_uri: 'x' }, status: 422, field: 'redirect_uri' },
      {
        name: 'unknown client_id',
        body: { ...valid, client_id: Bun.randomUUIDv7() },
        status: 422,
        field: 'client_id',
        message: 'no such client',
      },
      {
        name: 'a client_id that is no id',
        body: { ...valid, client_id: 'acme' },
        status: 422,
        field: 'client_id',
        message: 'must be a client id (cli_… or a UUID)',
      },
      { name: 'empty body', body: undefined, status: 422, field: 'client_name' },
      {
        name: 'unknown handle',
        path: '/agent/auth/claim',
        body: { registration_id: 'reg_unknown' },
        status: 404,
        code: 'NOT_FOUND',
      },
      {
        name: 'not a handle',
        path: '/agent/auth/claim',
        body: { registration_id: 'x' },
        status: 404,
        code: 'NOT_FOUND',
      },
      {
        name: 'claim without a handle',
        path: '/agent/auth/claim',
        body: {},
        status: 422,
        field: 'registration_id',
      },
      {
        name: 'revoke without a credential',
        path: '/agent/auth/revoke',
        body: {},
        status: 422,
        field: 'credential',
      },
    ],
  )
})

describe('20 requests a minute per IP, per endpoint', () => {
  test('the 21st register from one address is 429 with Retry-After; claim and other addresses are unaffected', async () => {
    const ip = '203.0.113.50'
    const body = { client_name: 'flood', identity_type: 'anonymous', scopes: ['lists:read'] }
    // Each answer says where the caller stands (RateLimit-*, as on keyed requests).
    const first = await agent('register', body, ip)
    expect(first.status).toBe(200)
    expect(first.headers.get('ratelimit-limit')).toBe('20')
    expect(first.headers.get('ratelimit-remaining')).toBe('19')
    for (let i = 1; i < 20; i++) expect((await agent('register', body, ip)).status).toBe(200)
    const limited = await agent('register', body, ip)
    expect(limited.status).toBe(429)
    expect(limited.body.error.code).toBe('RATE_LIMITED')
    expect(limited.headers.get('ratelimit-remaining')).toBe('0')
    const retry = Number(limited.headers.get('retry-after'))
    expect(retry).toBeGreaterThanOrEqual(1)
    expect(retry).toBeLessThanOrEqual(60)
    expect((await agent('register', body, '203.0.113.51')).status).toBe(200)
    expect((await agent('claim', { registration_id: 'reg_x' }, ip)).status).toBe(404)
    clock.t += retry * 1000
    expect((await agent('register', body, ip)).status).toBe(200)
  })
})

describe('per-IP buckets over a real socket', () => {
  // From a non-loopback peer X-Forwarded-For is not believed: the bucket is the peer's own,
  // so changing the header per request does not escape it. (Through app.handle there is no peer.)
  const external = Object.values(networkInterfaces())
    .flat()
    .find((a) => a?.family === 'IPv4' && !a.internal)?.address
  test.skipIf(!external)('a client that varies X-Forwarded-For is still limited by its address', async () => {
    const served = await createTestApp({ clock })
    served.app.listen({ port: 0, hostname: '0.0.0.0' })
    try {
      const url = `http://${external}:${served.app.server!.port}/agent/auth/claim`
      const statuses: number[] = []
      for (let i = 0; i < 21; i++) {
        const r = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.9.9.${i}` },
          body: JSON.stringify({ registration_id: 'reg_none' }),
        })
        statuses.push(r.status)
      }
      expect(statuses.slice(0, 20).every((s) => s === 404)).toBe(true)
      expect(statuses[20]).toBe(429)
    } finally {
      await served.app.stop(true)
    }
  })
})

describe('HERALD_AGENT_AUTO_APPROVE=1', async () => {
  const auto = await createTestApp({ clock, env: { HERALD_AGENT_AUTO_APPROVE: '1' } })
  const call = (path: string, body: unknown) =>
    auto.call('POST', `/agent/auth/${path}`, { key: null, body, headers: { 'x-forwarded-for': nextIp() } })

  test('an anonymous registration is approved at once for the default workspace with its read scopes', async () => {
    const reg = await call('register', {
      client_name: 'eval',
      identity_type: 'anonymous',
      scopes: ['contacts:read', 'contacts:write', 'analytics:read'],
    })
    expect(reg.status).toBe(200)
    expect(reg.body.data).toMatchObject({
      status: 'approved',
      scopes: ['contacts:read', 'analytics:read'],
      requested_scopes: ['contacts:read', 'contacts:write', 'analytics:read'],
      client_id: auto.defaultClientId,
    })
    const claimed = await call('claim', { registration_id: reg.body.data.registration_id })
    expect(claimed.status).toBe(200)
    expect(claimed.body.data).toMatchObject({
      scopes: ['contacts:read', 'analytics:read'],
      client_id: auto.defaultClientId,
    })
    expect((await auto.call('GET', '/api/v1/contacts', { key: claimed.body.data.credential })).status).toBe(
      200,
    )
  })

  test('only write scopes requested: nothing to approve, 422 naming scopes', async () => {
    const r = await call('register', {
      client_name: 'eval',
      identity_type: 'anonymous',
      scopes: ['contacts:write'],
    })
    expect(r.status).toBe(422)
    expect(r.body.error.details[0].field).toBe('scopes')
  })

  test('an identity_assertion registration still waits for its assertion', async () => {
    const r = await call('register', {
      client_name: 'idp',
      identity_type: 'identity_assertion',
      scopes: ['lists:read'],
    })
    expect(r.body.data.status).toBe('pending')
  })
})

describe('identity_assertion: approved at claim by a verified ID-JAG', () => {
  const jag = (
    claims: Record<string, unknown> = {},
    o: { key?: CryptoKey; iss?: string; aud?: string; typ?: string; exp?: number } = {},
  ) =>
    new SignJWT({ scope: 'contacts:read lists:read', client_id: 'agent-app', ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: o.typ ?? 'oauth-id-jag+jwt' })
      .setIssuer(o.iss ?? ISSUER)
      .setSubject('user-42')
      .setAudience(o.aud ?? BASE)
      .setIssuedAt(Math.floor(clock.t / 1000))
      .setExpirationTime(o.exp ?? Math.floor(clock.t / 1000) + 300)
      .setJti(Bun.randomUUIDv7())
      .sign(o.key ?? trusted.privateKey)

  const registerIdp = (scopes = ['contacts:read', 'contacts:write', 'lists:read'], client_id?: string) =>
    register({ identity_type: 'identity_assertion', scopes, ...(client_id ? { client_id } : {}) })

  test('a valid assertion: claimed at once, scopes = requested ∩ granted, the default workspace', async () => {
    const reg = await registerIdp()
    expect(reg.status).toBe('pending')
    const r = await claim(reg.registration_id, await jag())
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({
      scopes: ['contacts:read', 'lists:read'],
      client_id: t.defaultClientId,
      identity_type: 'identity_assertion',
    })
    expect((await t.call('GET', '/api/v1/lists', { key: r.body.data.credential })).status).toBe(200)
    expect((await recordOf(reg.registration_id)).subject).toBe(`${ISSUER} user-42`)
    expectState(await claim(reg.registration_id, await jag()), 'claimed')
  })

  test('aud_tenant names the workspace (either id form); it must agree with the one registered', async () => {
    const globex = await t.client('Globex')
    const reg = await registerIdp(['lists:read'], globex)
    const r = await claim(reg.registration_id, await jag({ aud_tenant: toPrefixedId('client', globex) }))
    expect(r.status).toBe(200)
    expect(r.body.data.client_id).toBe(globex)

    const other = await registerIdp(['lists:read'], globex)
    const refused = await claim(other.registration_id, await jag())
    expect(refused.status).toBe(403)
    expect(refused.body.error.code).toBe('FORBIDDEN')
  })

  const refusals: [string, () => Promise<string>, string][] = [
    ['wrong audience', () => jag({}, { aud: 'https://elsewhere.example' }), 'wrong_audience'],
    ['untrusted issuer', () => jag({}, { iss: STRANGER, key: stranger.privateKey }), 'untrusted_issuer'],
    [
      'trusted issuer named, another key signed',
      () => jag({}, { key: stranger.privateKey }),
      'bad_signature',
    ],
    ['expired', () => jag({}, { exp: Math.floor(clock.t / 1000) - 120 }), 'expired'],
    ['not an ID-JAG (typ JWT)', () => jag({}, { typ: 'JWT' }), 'wrong_type'],
    ['not a JWT', async () => 'user@example.com', 'malformed'],
  ]
  for (const [name, make, reason] of refusals)
    test(`${name} → 401 (${reason}); the registration stays pending`, async () => {
      const reg = await registerIdp()
      const r = await claim(reg.registration_id, await make())
      expect(r.status).toBe(401)
      expect(r.body.error.code).toBe('UNAUTHORIZED')
      expect(r.body.error.details).toEqual({ reason })
      // DESIGN §4: no Authorization or X-Api-Key header was presented, so the plain challenge.
      expect(r.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource"`,
      )
      expect((await recordOf(reg.registration_id)).status).toBe('pending')
      // … and a good assertion still claims it afterwards.
      expect((await claim(reg.registration_id, await jag())).status).toBe(200)
    })

  test('a refused assertion sent with an Authorization header: the challenge says invalid_token', async () => {
    const reg = await registerIdp()
    const r = await t.call('POST', '/agent/auth/claim', {
      key: 'hrld_not_a_key',
      body: { registration_id: reg.registration_id, identity_assertion: 'user@example.com' },
      headers: { 'x-forwarded-for': nextIp() },
    })
    expect(r.status).toBe(401)
    expect(r.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", resource_metadata="${BASE}/.well-known/oauth-protected-resource"`,
    )
  })

  test('no assertion → 422 naming identity_assertion; a grant of none of the scopes → 403', async () => {
    const reg = await registerIdp(['contacts:write'])
    const missing = await claim(reg.registration_id)
    expect(missing.status).toBe(422)
    expect(missing.body.error.details[0].field).toBe('identity_assertion')
    const none = await claim(reg.registration_id, await jag())
    expect(none.status).toBe(403)
  })
})

describe('over MCP', () => {
  test('a claimed key works on the MCP endpoint too (both official SDK clients), until revoked', async () => {
    const reg = await register({ scopes: ['contacts:read', 'contacts:write'] })
    await invoke(approveRegistrationVerb, system(), {
      id: (await recordOf(reg.registration_id)).id,
      client_id: t.defaultClientId,
      scopes: ['contacts:read'],
    })
    const { credential } = (await claim(reg.registration_id)).body.data
    const server = serveApp(t.app)
    try {
      for (const sdk of SDKS) {
        const mcp = await connectMcp(sdk, server.url, credential)
        const tools = (await mcp.listTools()).tools.map((x: { name: string }) => x.name)
        expect(tools).toContain('list_contacts')
        expect(tools).not.toContain('create_contact') // only the approved scope
        const listed = answerOf(await mcp.callTool({ name: 'list_contacts', arguments: {} }))
        expect(listed.pagination).toBeDefined()
        await mcp.close()
      }
      expect((await agent('revoke', { credential })).status).toBe(200)
      const refused = await fetch(server.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${credential}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      })
      expect(refused.status).toBe(401)
    } finally {
      server.stop()
    }
  })
})
