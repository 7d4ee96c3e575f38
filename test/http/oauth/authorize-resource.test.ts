import { beforeAll, describe, expect, test } from 'bun:test'
import { BASE, createTestApp } from '../../helpers/app'

// Parameters given more than once (RFC 6749 §3.1) and RFC 8707 resource indicators at /oauth2/authorize: the `resource` becomes the access token's
// `aud`, so only Herald's own resources are accepted; anything else goes back to the client as
// `invalid_target` (with state and iss, like every error after the redirect URI is trusted).

const t = await createTestApp()
const REDIRECT = 'https://app.example/cb'
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCQaoWL8hmy6bHG9kK8Ne3d0'
let clientId: string

beforeAll(async () => {
  const res = await t.call('POST', '/api/v1/oauth-clients', {
    body: { name: 'App', redirect_uris: [REDIRECT], confidential: false, scopes: ['contacts:read'] },
  })
  expect(res.status).toBe(200)
  clientId = res.body.data.oauth_client_id
})

function authorize(resource: string) {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    state: 'st',
    resource,
  })
  return t.call('GET', `/oauth2/authorize?${q}`, { key: null })
}

describe('resource', () => {
  // Each row names the check that refuses it (error_description), so a row fails if its own
  // check goes, not merely if every check does.
  const NOT_ABSOLUTE = 'resource must be an absolute URI'
  const FRAGMENT = 'resource must not contain a fragment'
  for (const [name, resource, why] of [
    ['another server', 'https://evil.example/mcp', "resource must be one of this server's"],
    ['not a URI', 'mcp server', NOT_ABSOLUTE],
    ['a relative reference to our own MCP path', '/mcp/v1', NOT_ABSOLUTE],
    ['a fragment', `${BASE}/mcp/v1#x`, FRAGMENT],
    ['an empty fragment (URL would drop it)', `${BASE}/mcp/v1#`, FRAGMENT],
  ])
    test(`${name} → redirected with invalid_target`, async () => {
      const res = await authorize(resource!)
      expect(res.status).toBe(303)
      const to = new URL(res.headers.get('location')!)
      expect(to.origin + to.pathname).toBe(REDIRECT)
      expect(to.searchParams.get('error')).toBe('invalid_target')
      expect(to.searchParams.get('error_description')).toStartWith(why!)
      expect(to.searchParams.get('state')).toBe('st')
      expect(to.searchParams.get('iss')).toBe(BASE)
    })

  for (const resource of [BASE, `${BASE}/mcp/v1`])
    test(`${resource} is accepted (on to the sign-in)`, async () => {
      const res = await authorize(resource)
      expect(res.status).toBe(303)
      expect(res.headers.get('location')).toStartWith('/admin/login?next=')
    })
})

describe('a parameter given twice', () => {
  const query = (extra: string) =>
    `/oauth2/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}` +
    `&code_challenge=${CHALLENGE}&code_challenge_method=S256&state=st${extra}`

  test('client_id or redirect_uri twice → an error page, never a redirect', async () => {
    for (const extra of [`&client_id=${clientId}`, `&redirect_uri=${encodeURIComponent(REDIRECT)}`]) {
      const res = await t.call('GET', query(extra), { key: null })
      expect(res.status).toBe(400)
      expect(res.headers.get('location')).toBeNull()
      expect(res.text).toContain('more than once')
    }
  })

  test('another parameter twice → redirected with invalid_request', async () => {
    for (const extra of ['&scope=contacts:read&scope=contacts:read', '&code_challenge_method=S256']) {
      const res = await t.call('GET', query(extra), { key: null })
      expect(res.status).toBe(303)
      const to = new URL(res.headers.get('location')!)
      expect(to.searchParams.get('error')).toBe('invalid_request')
      expect(to.searchParams.get('state')).toBe('st')
    }
  })
})
