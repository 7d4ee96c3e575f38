import { afterAll, describe, expect, test } from 'bun:test'
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose'
import { ConfigError, loadConfig } from '../../../src/config'
import { IdJagError, verifyIdJag } from '../../../src/services/agents/id-jag'

// verifyIdJag on its own (the agent claim and the OAuth jwt-bearer grant both call it): each
// way an assertion can fail names its reason; issuer keys come from a local JWKS server.

const now = Date.UTC(2026, 2, 3, 9)
const keys = await generateKeyPair('ES256')
// A key the issuer rotates in later (kid b), listed at /rotating once `rotatedIn`.
const nextKeys = await generateKeyPair('ES256')
let rotatedIn = false
// /flaky answers HTTP 503 while `down`.
let down = false
let fetches = 0
// Every URL starts with a path of this file's own: key sets are cached per URL for the process,
// and another test file may have served other keys on the same port.
const RUN = `/${crypto.randomUUID()}`
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    fetches++
    const path = new URL(req.url).pathname.replace(RUN, '')
    if (path === '/broken' || (path === '/flaky' && down)) return new Response('nope', { status: 503 })
    const listed = [{ ...(await exportJWK(keys.publicKey)), kid: 'a', alg: 'ES256' }]
    if (path === '/rotating' && rotatedIn)
      listed.push({ ...(await exportJWK(nextKeys.publicKey)), kid: 'b', alg: 'ES256' })
    return Response.json({ keys: listed })
  },
})
afterAll(() => server.stop(true))
const keysAt = (path: string) => `http://127.0.0.1:${server.port}${RUN}${path}`

const ISS = 'https://idp.example.test'
const AUD = 'https://herald.example.test'
const base = { audience: AUD, now, trustedIssuers: { [ISS]: keysAt('/jwks') } }
const sign = (claims: Record<string, unknown> = {}, iss = ISS) =>
  new SignJWT({ client_id: 'app-1', scope: 'contacts:read lists:read', email: 'u@example.com', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'a', typ: 'oauth-id-jag+jwt' })
    .setIssuer(iss)
    .setSubject('sub-1')
    .setAudience(AUD)
    .setIssuedAt(now / 1000)
    .setExpirationTime(now / 1000 + 300)
    .setJti('j-1')
    .sign(keys.privateKey)

/** An assertion issued at `t` (ms), by key `a` unless told. */
const signedAt = (t: number, o: { kid?: string; key?: CryptoKey } = {}) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: o.kid ?? 'a', typ: 'oauth-id-jag+jwt' })
    .setIssuer(ISS)
    .setSubject('sub-1')
    .setAudience(AUD)
    .setIssuedAt(t / 1000)
    .setExpirationTime(t / 1000 + 300)
    .setJti(`j-${t}`)
    .sign(o.key ?? keys.privateKey)

const reason = async (p: Promise<unknown>) => {
  try {
    await p
    return 'verified'
  } catch (err) {
    if (err instanceof IdJagError) return err.reason
    throw err
  }
}

describe('verifyIdJag', () => {
  test('a valid assertion: issuer, subject and the claims Herald reads', async () => {
    const jag = await verifyIdJag(await sign({ aud_tenant: 'cli_x' }), base)
    expect(jag).toMatchObject({
      issuer: ISS,
      subject: 'sub-1',
      clientId: 'app-1',
      scopes: ['contacts:read', 'lists:read'],
      audTenant: 'cli_x',
      email: 'u@example.com',
      jti: 'j-1',
      expiresAt: now + 300_000,
    })
  })

  test('an untrusted issuer is refused before any key is fetched', async () => {
    const before = fetches
    expect(await reason(verifyIdJag(await sign({}, 'https://other.example'), base))).toBe('untrusted_issuer')
    expect(fetches).toBe(before)
  })

  test('the judged time is the caller clock: expired after exp (+30 s tolerance), valid before', async () => {
    const jag = await sign()
    expect(await reason(verifyIdJag(jag, { ...base, now: now + 299_000 }))).toBe('verified')
    expect(await reason(verifyIdJag(jag, { ...base, now: now + 331_000 }))).toBe('expired')
  })

  test('unsigned (alg none) is refused', async () => {
    const unsigned = new UnsecuredJWT({ sub: 's' })
      .setIssuer(ISS)
      .setAudience(AUD)
      .setIssuedAt(now / 1000)
      .setExpirationTime(now / 1000 + 60)
      .encode()
    // Its header has no typ: refused as the wrong type of token before anything else.
    expect(await reason(verifyIdJag(unsigned, base))).toBe('wrong_type')
    const [, payload] = unsigned.split('.')
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'oauth-id-jag+jwt' })).toString('base64url')
    expect(await reason(verifyIdJag(`${header}.${payload}.`, base))).toBe('bad_signature')
  })

  test('a key rotated in is fetched on its unknown kid, at most every 30 s on the caller clock', async () => {
    const at = (t: number) => ({
      ...base,
      now: t,
      trustedIssuers: { [ISS]: keysAt('/rotating') },
    })
    expect(await reason(verifyIdJag(await sign(), at(now)))).toBe('verified')
    rotatedIn = true
    const signedByB = await signedAt(now, { kid: 'b', key: nextKeys.privateKey })
    const before = fetches
    expect(await reason(verifyIdJag(signedByB, at(now + 29_000)))).toBe('bad_signature')
    expect(fetches).toBe(before)
    expect(await reason(verifyIdJag(signedByB, at(now + 31_000)))).toBe('verified')
    expect(fetches).toBe(before + 1)
  })

  test('keys past their 10 min age are refetched; while the JWKS is down the ones held still verify', async () => {
    const at = (t: number) => ({
      ...base,
      now: t,
      trustedIssuers: { [ISS]: keysAt('/flaky') },
    })
    expect(await reason(verifyIdJag(await sign(), at(now)))).toBe('verified')
    down = true
    const later = now + 11 * 60_000
    const before = fetches
    expect(await reason(verifyIdJag(await signedAt(later), at(later)))).toBe('verified')
    expect(fetches).toBe(before + 1)
    down = false
  })

  test('keys that cannot be fetched: jwks_unavailable', async () => {
    const broken = { ...base, trustedIssuers: { [ISS]: keysAt('/broken') } }
    expect(await reason(verifyIdJag(await sign(), broken))).toBe('jwks_unavailable')
    const closed = { ...base, trustedIssuers: { [ISS]: 'http://127.0.0.1:9/jwks' } }
    expect(await reason(verifyIdJag(await sign(), closed))).toBe('jwks_unavailable')
  })

  test('no subject → invalid_claims; garbage → malformed', async () => {
    const noSub = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'a', typ: 'oauth-id-jag+jwt' })
      .setIssuer(ISS)
      .setAudience(AUD)
      .setIssuedAt(now / 1000)
      .setExpirationTime(now / 1000 + 60)
      .sign(keys.privateKey)
    expect(await reason(verifyIdJag(noSub, base))).toBe('invalid_claims')
    expect(await reason(verifyIdJag('a.b.c', base))).toBe('malformed')
  })
})

describe('configuration', () => {
  test('HERALD_IDJAG_ISSUERS pairs, HERALD_AGENT_ANONYMOUS_SCOPES, HERALD_AGENT_AUTO_APPROVE', () => {
    const c = loadConfig(
      {},
      {
        HERALD_IDJAG_ISSUERS:
          'https://a.example=https://a.example/jwks?x=1, https://b.example=http://10.0.0.1/k',
        HERALD_AGENT_ANONYMOUS_SCOPES: 'contacts:read,lists:write',
        HERALD_AGENT_AUTO_APPROVE: '1',
      },
    )
    expect(c.idjagIssuers).toEqual({
      'https://a.example': 'https://a.example/jwks?x=1',
      'https://b.example': 'http://10.0.0.1/k',
    })
    expect(c.agentAnonymousScopes).toEqual(['contacts:read', 'lists:write'])
    expect(c.agentAutoApprove).toBe(true)
    const d = loadConfig({}, {})
    expect(d.idjagIssuers).toEqual({})
    expect(d.agentAutoApprove).toBe(false)
    expect(d.agentAnonymousScopes).toContain('analytics:read')
    expect(d.agentAnonymousScopes.every((s) => s.endsWith(':read'))).toBe(true)
    expect(() => loadConfig({}, { HERALD_AGENT_ANONYMOUS_SCOPES: 'contacts:read,root' })).toThrow(ConfigError)
    expect(() => loadConfig({}, { HERALD_IDJAG_ISSUERS: 'https://a.example' })).toThrow(ConfigError)
    expect(() => loadConfig({}, { HERALD_IDJAG_ISSUERS: 'https://a.example=ftp://x' })).toThrow(ConfigError)
  })
})
