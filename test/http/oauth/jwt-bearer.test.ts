import { describe, expect, test } from 'bun:test'
import { generateKeyPair, SignJWT } from 'jose'
import { BASE, createTestApp } from '../../helpers/app'
import { serveIdpKeys } from '../../helpers/idp'

// The JWT-bearer grant with ID-JAG assertions (DESIGN §5): an identity provider the operator
// trusts (HERALD_IDJAG_ISSUERS) vouches for a user; Herald's token endpoint trades the assertion
// for an access token of the registered client, in the assertion's workspace (aud_tenant).

const clock = { t: Date.UTC(2026, 2, 3, 9), now: () => clock.t }
const trusted = await serveIdpKeys()
const stranger = await generateKeyPair('ES256')
const ISSUER = 'https://idp.example.test'

const t = await createTestApp({
  clock,
  env: { HERALD_IDJAG_ISSUERS: `${ISSUER}=${trusted.jwksUrl}` },
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

const jag = (claims: Record<string, unknown> = {}, o: { key?: CryptoKey; aud?: string; typ?: string } = {}) =>
  new SignJWT({ client_id: clientId, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: o.typ ?? 'oauth-id-jag+jwt' })
    .setIssuer(ISSUER)
    .setSubject('user-42')
    .setAudience(o.aud ?? BASE)
    .setIssuedAt(Math.floor(clock.t / 1000))
    .setExpirationTime(Math.floor(clock.t / 1000) + 300)
    .setJti(Bun.randomUUIDv7())
    .sign(o.key ?? trusted.privateKey)

async function token(fields: Record<string, string>) {
  const res = await t.app.handle(
    new Request(`${BASE}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', ...fields }),
    }),
  )
  return { status: res.status, body: await res.json() }
}

describe('jwt-bearer grant with an ID-JAG', () => {
  test('a valid assertion → an access token for the subject, scopes within the assertion, the workspace of aud_tenant', async () => {
    const other = await t.client('Other')
    const res = await token({
      assertion: await jag({ scope: 'contacts:read journeys:read', aud_tenant: other }),
    })
    expect(res.status).toBe(200)
    expect(res.body.scope).toBe('contacts:read')
    expect(res.body.refresh_token).toBeUndefined()
    const claims = JSON.parse(Buffer.from(res.body.access_token.split('.')[1], 'base64url').toString())
    expect(claims.sub).toBe(`${ISSUER}#user-42`)
    expect(claims.tenant).toBe(other)
    const list = await t.call('GET', '/api/v1/contacts', { key: res.body.access_token })
    expect(list.status).toBe(200)
  })

  test('without a scope claim the client’s scopes; without aud_tenant the default workspace', async () => {
    const res = await token({ assertion: await jag() })
    expect(res.body.scope).toBe('contacts:read contacts:write')
    const claims = JSON.parse(Buffer.from(res.body.access_token.split('.')[1], 'base64url').toString())
    expect(claims.tenant).toBe(t.defaultClientId)
  })

  test.each([
    ['signed by an untrusted key', async () => jag({}, { key: stranger.privateKey }), 'invalid_grant'],
    ['for another audience', async () => jag({}, { aud: 'https://elsewhere.example' }), 'invalid_grant'],
    ['of another typ', async () => jag({}, { typ: 'JWT' }), 'invalid_grant'],
    ['issued to another client', async () => jag({ client_id: 'someone-else' }), 'invalid_grant'],
    [
      'naming an unknown workspace',
      async () => jag({ aud_tenant: '00000000-0000-7000-8000-000000000000' }),
      'invalid_grant',
    ],
    ['granting none of the client’s scopes', async () => jag({ scope: 'journeys:read' }), 'invalid_scope'],
    ['not a JWT', async () => 'not-a-jwt', 'invalid_grant'],
  ])('an assertion %s is refused', async (_, make, error) => {
    const res = await token({ assertion: await make() })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ error, error_description: expect.any(String) })
  })

  test('no assertion → invalid_request', async () => {
    expect((await token({})).body.error).toBe('invalid_request')
  })
})
