import { expect, test } from 'bun:test'
import { SignJWT } from 'jose'
import { BASE, createTestApp } from '../../helpers/app'
import { serveIdpKeys } from '../../helpers/idp'

// The JWT-bearer grant for an OAuth client registered for one workspace (`client_id`): its
// tokens are for that workspace, as its client-credentials tokens are. Without aud_tenant the
// assertion gets the client's workspace (not the default one); an aud_tenant naming another
// workspace is refused (invalid_grant).

const clock = { t: Date.UTC(2026, 2, 3, 9), now: () => clock.t }
const idp = await serveIdpKeys()
const ISSUER = 'https://idp.example.test'
const t = await createTestApp({
  clock,
  env: { HERALD_IDJAG_ISSUERS: `${ISSUER}=${idp.jwksUrl}` },
})
const workspace = await t.client('Bound')
const other = await t.client('Other')
const created = await t.call('POST', '/api/v1/oauth-clients', {
  body: {
    name: 'Bound app',
    redirect_uris: [],
    confidential: true,
    scopes: ['contacts:read'],
    client_id: workspace,
  },
})
const { oauth_client_id: clientId, client_secret: secret } = created.body.data

const jag = (claims: Record<string, unknown>) =>
  new SignJWT({ client_id: clientId, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'oauth-id-jag+jwt' })
    .setIssuer(ISSUER)
    .setSubject('user-7')
    .setAudience(BASE)
    .setIssuedAt(Math.floor(clock.t / 1000))
    .setExpirationTime(Math.floor(clock.t / 1000) + 300)
    .setJti(Bun.randomUUIDv7())
    .sign(idp.privateKey)

async function token(assertion: string) {
  const res = await t.call('POST', '/oauth2/token', {
    key: null,
    raw: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion,
    }).toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
    },
  })
  return res
}
const tenantOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).tenant

test('without aud_tenant → the client’s workspace', async () => {
  const res = await token(await jag({}))
  expect(res.status).toBe(200)
  expect(tenantOf(res.body.access_token)).toBe(workspace)
})

test('aud_tenant = the client’s workspace → allowed', async () => {
  const res = await token(await jag({ aud_tenant: workspace }))
  expect(res.status).toBe(200)
  expect(tenantOf(res.body.access_token)).toBe(workspace)
})

test('aud_tenant = another workspace → invalid_grant', async () => {
  const res = await token(await jag({ aud_tenant: other }))
  expect(res.status).toBe(400)
  expect(res.body.error).toBe('invalid_grant')
})
