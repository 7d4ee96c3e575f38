import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import { withActor } from '../../../src/context'
import { systemActor } from '../../../src/services/actors/actor'
import { updateUserVerb } from '../../../src/services/users/verbs'
import { invoke } from '../../../src/services/verbs/invoke'
import { createTestApp, type TestApp } from '../../helpers/app'
import { testClock } from '../../helpers/journey'
import { answerOf, connectMcp, SDKS } from '../../helpers/mcp'
import { freePort } from '../../helpers/ports'
import {
  type Browser,
  browser,
  makeUser,
  OWNER_PASSWORD,
  PORTAL_ENV,
  signIn,
  submitLogin,
} from '../admin/portal-helpers'
import {
  authorizeAs,
  authorizeQuery,
  basic,
  consentForm,
  exchangeCode,
  form,
  overHttp,
  pkce,
} from './oauth-client'

// The OAuth 2.1 authorization server end to end over real HTTP (DESIGN §5): discovery, the code
// flow with PKCE through the portal's sign-in and consent page, tokens used on REST, refresh
// rotation and reuse, client credentials, revocation, expiry on the injected clock, tenancy.

const clock = testClock()
const port = freePort()
const base = `http://127.0.0.1:${port}`
// Made at the top level: createTestApp registers its own afterAll (closing the database).
const t: TestApp = await createTestApp({ clock, env: { ...PORTAL_ENV, HERALD_PUBLIC_URL: base } })
let owner: Browser
let workspaceA: string
let workspaceB: string
const REDIRECT = 'http://127.0.0.1:9/callback'
let publicClient: string

async function rest(path: string, token: string, init: RequestInit = {}) {
  const res = await fetch(base + path, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
  })
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null }
}

async function codeFlow(scope = 'contacts:read contacts:write', workspace = workspaceA, scopes?: string[]) {
  const { verifier, challenge } = pkce()
  const { code } = await authorizeAs(
    owner,
    { clientId: publicClient, redirectUri: REDIRECT, scope, challenge },
    { workspace, scopes },
  )
  const res = await exchangeCode(base, {
    code: code!,
    redirectUri: REDIRECT,
    verifier,
    clientId: publicClient,
  })
  expect(res.status).toBe(200)
  return res.body as { access_token: string; refresh_token: string; scope: string; expires_in: number }
}

beforeAll(async () => {
  t.app.listen({ port, hostname: '127.0.0.1' })
  workspaceA = t.defaultClientId
  workspaceB = await t.client('Workspace B')
  owner = await signIn(t, undefined, overHttp(base))
  const created = await t.call('POST', '/api/v1/oauth-clients', {
    body: {
      name: 'Test app',
      redirect_uris: [REDIRECT],
      confidential: false,
      scopes: ['campaigns:read', 'contacts:read', 'contacts:write'],
    },
  })
  expect(created.status).toBe(200)
  publicClient = created.body.data.oauth_client_id
})

afterAll(async () => {
  await t.app.stop(true)
})

describe('discovery', () => {
  test('metadata names the endpoints, S256 only, the grant types, and the JWKS verifies our tokens (jose)', async () => {
    const meta = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()
    expect(meta.issuer).toBe(base)
    expect(meta.authorization_endpoint).toBe(`${base}/oauth2/authorize`)
    expect(meta.token_endpoint).toBe(`${base}/oauth2/token`)
    expect(meta.jwks_uri).toBe(`${base}/oauth2/jwks`)
    expect(meta.revocation_endpoint).toBe(`${base}/oauth2/revoke`)
    expect(meta.registration_endpoint).toBe(`${base}/oauth2/register`)
    expect(meta.code_challenge_methods_supported).toEqual(['S256'])
    expect(meta.grant_types_supported).toEqual(
      expect.arrayContaining([
        'authorization_code',
        'refresh_token',
        'client_credentials',
        'urn:ietf:params:oauth:grant-type:jwt-bearer',
      ]),
    )
    expect(meta.scopes_supported).not.toContain('admin:*')

    const tokens = await codeFlow()
    const { payload, protectedHeader } = await jwtVerify(
      tokens.access_token,
      createRemoteJWKSet(new URL(meta.jwks_uri)),
      {
        issuer: base,
        currentDate: new Date(clock.t),
      },
    )
    expect(protectedHeader.alg).toBe('EdDSA')
    expect(payload.client_id).toBe(publicClient)
    expect(payload.scope).toBe('contacts:read contacts:write')
    expect(payload.tenant).toBe(workspaceA)
    expect(typeof payload.sub).toBe('string')
    expect(payload.exp! - payload.iat!).toBe(3600)
    expect(tokens.expires_in).toBe(3600)
  })
})

describe('authorization code + PKCE', () => {
  test('the consent page has the workspace select, one checked scope box per requested scope, allow/deny', async () => {
    const { challenge } = pkce()
    const q = authorizeQuery({
      clientId: publicClient,
      redirectUri: REDIRECT,
      scope: 'contacts:read campaigns:read',
      challenge,
      state: 'x',
    })
    const page = await owner.get(`/oauth2/authorize?${q}`)
    expect(page.status).toBe(200)
    const f = consentForm(page.text)
    expect(f.hasWorkspaceSelect).toBe(true)
    expect(f.workspaces).toEqual(expect.arrayContaining([workspaceA, workspaceB]))
    expect(f.scopes).toEqual(['contacts:read', 'campaigns:read'])
    expect(f.decisions).toEqual(['allow', 'deny'])
    expect(page.text.match(/name="scope" value="[^"]+" checked/g)?.length).toBe(2)
  })

  test('the form also works posted to /oauth2/authorize without its query, from its hidden fields', async () => {
    const { verifier, challenge } = pkce()
    const q = authorizeQuery({
      clientId: publicClient,
      redirectUri: REDIRECT,
      scope: 'contacts:read contacts:write',
      challenge,
      state: 'h',
    })
    const page = await owner.get(`/oauth2/authorize?${q}`)
    const hidden = Object.fromEntries(
      [...page.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [
        m[1]!,
        m[2]!.replaceAll('&amp;', '&'),
      ]),
    )
    owner.csrf = hidden._csrf!
    const answer = await owner.post('/oauth2/authorize', {
      ...hidden,
      client_id: workspaceA,
      scope: ['contacts:read'],
      decision: 'allow',
    })
    expect(answer.status).toBe(303)
    const to = new URL(answer.location!)
    expect(to.searchParams.get('state')).toBe('h')
    const tok = await exchangeCode(base, {
      code: to.searchParams.get('code')!,
      redirectUri: REDIRECT,
      verifier,
      clientId: publicClient,
    })
    expect(tok.body.scope).toBe('contacts:read')
  })

  test('without a session the authorize link shows the portal sign-in, which returns to the consent page', async () => {
    const { challenge } = pkce()
    const q = authorizeQuery({
      clientId: publicClient,
      redirectUri: REDIRECT,
      scope: 'contacts:read',
      challenge,
    })
    const first = await fetch(`${base}/oauth2/authorize?${q}`, { redirect: 'manual' })
    expect(first.status).toBe(303)
    const login = first.headers.get('location')!
    expect(login.startsWith('/admin/login?next=')).toBe(true)
    const next = new URL(login, base).searchParams.get('next')!
    expect(next).toBe(`/oauth2/authorize?${q}`)
    // The sign-in form carries that `next`, and signing in lands back on the authorize URL.
    const fresh = browser(t, overHttp(base))
    const loginForm = await fresh.get(login)
    expect(loginForm.text).toContain(`name="next" value="${next.replaceAll('&', '&amp;')}"`)
    const signedIn = await submitLogin(fresh, 'admin@localhost', OWNER_PASSWORD, { next })
    expect(signedIn.status).toBe(303)
    expect(signedIn.location).toBe(next)
    expect((await fresh.get(next)).status).toBe(200)
    // Already signed in, the sign-in page goes straight there.
    const again = await fresh.get(login)
    expect(again.status).toBe(303)
    expect(again.location).toBe(next)
  })

  test('deny → access_denied with the state, and no code', async () => {
    const { challenge } = pkce()
    const { redirect, code } = await authorizeAs(
      owner,
      { clientId: publicClient, redirectUri: REDIRECT, scope: 'contacts:read', challenge, state: 's-9' },
      { workspace: workspaceA, decision: 'deny' },
    )
    expect(code).toBeNull()
    expect(redirect.searchParams.get('error')).toBe('access_denied')
    expect(redirect.searchParams.get('state')).toBe('s-9')
    expect(redirect.searchParams.get('iss')).toBe(base)
  })

  test('plain PKCE, a missing challenge and a wrong response_type go back to the client as errors', async () => {
    const q = (extra: Record<string, string>) =>
      new URLSearchParams({
        response_type: 'code',
        client_id: publicClient,
        redirect_uri: REDIRECT,
        scope: 'contacts:read',
        state: 'p',
        ...extra,
      })
    for (const [extra, error] of [
      [{ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge: 'a'.repeat(43) }, 'invalid_request'],
      [{}, 'invalid_request'],
      [
        { code_challenge: 'a'.repeat(43), code_challenge_method: 'S256', response_type: 'token' },
        'unsupported_response_type',
      ],
      [{ code_challenge: 'a'.repeat(43), code_challenge_method: 'S256', scope: 'admin:*' }, 'invalid_scope'],
      [
        { code_challenge: 'a'.repeat(43), code_challenge_method: 'S256', scope: 'journeys:write' },
        'invalid_scope',
      ],
    ] as const) {
      const res = await owner.get(`/oauth2/authorize?${q(extra)}`)
      expect(res.status).toBe(303)
      const to = new URL(res.location!)
      expect(`${to.origin}${to.pathname}`).toBe(REDIRECT)
      expect(to.searchParams.get('error')).toBe(error)
      expect(to.searchParams.get('state')).toBe('p')
    }
  })

  test('a redirect URI not registered exactly (or an unknown client) is shown, never redirected to', async () => {
    const { challenge } = pkce()
    for (const [clientId, redirectUri] of [
      [publicClient, 'http://127.0.0.1:9/callback/'],
      [publicClient, 'http://127.0.0.1:9/callback?x=1'],
      [publicClient, 'https://evil.example/callback'],
      ['00000000-0000-7000-8000-000000000000', REDIRECT],
    ]) {
      const q = authorizeQuery({
        clientId: clientId!,
        redirectUri: redirectUri!,
        scope: 'contacts:read',
        challenge,
      })
      const res = await owner.get(`/oauth2/authorize?${q}`)
      expect(res.status).toBe(400)
      expect(res.location).toBeNull()
    }
  })

  test('a code is single use, bound to its redirect_uri, verifier and client; errors per RFC 6749 §5.2', async () => {
    const { verifier, challenge } = pkce()
    const { code } = await authorizeAs(
      owner,
      { clientId: publicClient, redirectUri: REDIRECT, scope: 'contacts:read', challenge },
      { workspace: workspaceA },
    )
    const exchange = (fields: Record<string, string>) =>
      exchangeCode(base, { code: code!, redirectUri: REDIRECT, verifier, clientId: publicClient }, fields)
    const wrongVerifier = await exchange({ code_verifier: pkce().verifier })
    expect(wrongVerifier.status).toBe(400)
    expect(wrongVerifier.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) })
    expect(wrongVerifier.headers.get('cache-control')).toBe('no-store')
    expect((await exchange({ redirect_uri: 'http://127.0.0.1:9/other' })).body.error).toBe('invalid_grant')
    const ok = await exchange({})
    expect(ok.status).toBe(200)
    expect(ok.body.token_type).toBe('Bearer')
    const again = await exchange({})
    expect(again.status).toBe(400)
    expect(again.body.error).toBe('invalid_grant')
    // Reuse of a code revokes what it gave.
    expect((await rest('/api/v1/contacts', ok.body.access_token as string)).status).toBe(401)
  })
})

describe('tokens on REST', () => {
  test('scopes from the token, tenant = the workspace chosen; 403 names the scope with an insufficient_scope challenge', async () => {
    const tokens = await codeFlow('contacts:read contacts:write', workspaceB)
    const created = await rest('/api/v1/contacts', tokens.access_token, {
      method: 'POST',
      body: JSON.stringify({ email: 'b-person@example.com' }),
    })
    expect(created.status).toBe(200)
    expect(created.body.data.client_id).toBe(workspaceB)
    const list = await rest('/api/v1/contacts', tokens.access_token)
    expect(list.status).toBe(200)
    expect(list.body.data.map((c: { client_id: string }) => c.client_id)).toEqual([workspaceB])

    const forbidden = await rest('/api/v1/campaigns', tokens.access_token, { method: 'POST', body: '{}' })
    expect(forbidden.status).toBe(403)
    expect(forbidden.body.error.code).toBe('FORBIDDEN')
    expect(forbidden.body.error.details.required_scope).toBe('campaigns:write')
    expect(forbidden.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="campaigns:write"',
    )
    // A read any API key may do needs campaigns:read from a token (DESIGN §5).
    const anyRead = await rest('/api/v1/webhooks', tokens.access_token)
    expect(anyRead.status).toBe(403)
    expect(anyRead.body.error.details.required_scope).toBe('campaigns:read')
  })

  test('tenancy: a token for workspace A cannot read a contact of workspace B', async () => {
    const b = await t.call('POST', `/api/v1/contacts?client_id=${workspaceB}`, {
      body: { email: 'only-b@example.com' },
    })
    expect(b.status).toBe(200)
    const tokens = await codeFlow('contacts:read', workspaceA)
    expect((await rest(`/api/v1/contacts/${b.body.data.id}`, tokens.access_token)).status).toBe(404)
    const list = await rest('/api/v1/contacts?limit=200', tokens.access_token)
    expect(list.body.data.some((c: { id: string }) => c.id === b.body.data.id)).toBe(false)
  })

  test('the user can uncheck scopes; the token carries only those checked', async () => {
    const tokens = await codeFlow('contacts:read contacts:write', workspaceA, ['contacts:read'])
    expect(tokens.scope).toBe('contacts:read')
    const write = await rest('/api/v1/contacts', tokens.access_token, {
      method: 'POST',
      body: JSON.stringify({ email: 'x@example.com' }),
    })
    expect(write.status).toBe(403)
  })

  test('an expired token is 401 with an invalid_token challenge (injected clock)', async () => {
    const tokens = await codeFlow('contacts:read')
    expect((await rest('/api/v1/contacts', tokens.access_token)).status).toBe(200)
    const start = clock.t
    clock.t += 3600 * 1000
    try {
      const res = await rest('/api/v1/contacts', tokens.access_token)
      expect(res.status).toBe(401)
      expect(res.body.error.code).toBe('UNAUTHORIZED')
      expect(res.headers.get('www-authenticate')).toBe(
        `Bearer error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource"`,
      )
    } finally {
      clock.t = start
    }
  })

  test('a token with a forged signature or another issuer is 401', async () => {
    const tokens = await codeFlow('contacts:read')
    const [h, p, s] = tokens.access_token.split('.')
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString())
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, scope: 'contacts:read contacts:write campaigns:write' })).toString('base64url')}.${s}`
    expect((await rest('/api/v1/contacts', forged)).status).toBe(401)
  })
})

describe('refresh tokens', () => {
  test('rotate on use; the old one presented again revokes the whole chain', async () => {
    const first = await codeFlow('contacts:read')
    const refresh = (token: string) =>
      form(base, '/oauth2/token', {
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: publicClient,
      })
    const second = await refresh(first.refresh_token)
    expect(second.status).toBe(200)
    expect(second.body.refresh_token).not.toBe(first.refresh_token)
    expect((await rest('/api/v1/contacts', second.body.access_token as string)).status).toBe(200)

    const replay = await refresh(first.refresh_token)
    expect(replay.status).toBe(400)
    expect(replay.body.error).toBe('invalid_grant')
    // The chain is gone: the newest refresh token and every access token of the grant.
    expect((await refresh(second.body.refresh_token as string)).body.error).toBe('invalid_grant')
    expect((await rest('/api/v1/contacts', second.body.access_token as string)).status).toBe(401)
    expect((await rest('/api/v1/contacts', first.access_token)).status).toBe(401)
  })

  test('a refresh token works only for its own client, and expires after 30 days', async () => {
    const tokens = await codeFlow('contacts:read')
    const other = await t.call('POST', '/api/v1/oauth-clients', {
      body: { name: 'Other', redirect_uris: [REDIRECT], confidential: false, scopes: ['contacts:read'] },
    })
    const wrongClient = await form(base, '/oauth2/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: other.body.data.oauth_client_id,
    })
    expect(wrongClient.body.error).toBe('invalid_grant')
    const start = clock.t
    clock.t += 30 * 86_400_000
    try {
      const late = await form(base, '/oauth2/token', {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: publicClient,
      })
      expect(late.body.error).toBe('invalid_grant')
    } finally {
      clock.t = start
    }
  })
})

describe('refresh follows the user', () => {
  test("a demoted user's refresh gets fewer scopes; a member removed from the workspace can no longer refresh", async () => {
    const system = withActor(t.ctx, systemActor('test'), 'test')
    const member = await makeUser(t, { role: 'member', clients: [workspaceB] })
    const browser = await signIn(t, member, overHttp(base))
    const tokensFor = async (who: Browser, scope: string) => {
      const { verifier, challenge } = pkce()
      const { code } = await authorizeAs(
        who,
        { clientId: publicClient, redirectUri: REDIRECT, scope, challenge },
        { workspace: workspaceB },
      )
      const res = await exchangeCode(base, {
        code: code!,
        redirectUri: REDIRECT,
        verifier,
        clientId: publicClient,
      })
      return res.body as { refresh_token: string; scope: string }
    }
    const refresh = (token: string) =>
      form(base, '/oauth2/token', {
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: publicClient,
      })

    const first = await tokensFor(browser, 'contacts:read contacts:write')
    expect(first.scope).toBe('contacts:read contacts:write')
    await invoke(updateUserVerb, system, { id: member.id, role: 'viewer' })
    const demoted = await refresh(first.refresh_token)
    expect(demoted.status).toBe(200)
    expect(demoted.body.scope).toBe('contacts:read')

    await invoke(updateUserVerb, system, { id: member.id, role: 'member', clients: [workspaceA] })
    const removed = await refresh(demoted.body.refresh_token as string)
    expect(removed.status).toBe(400)
    expect(removed.body.error).toBe('invalid_grant')
  })

  test('a user demoted to a role that can give none of the grant’s scopes can no longer refresh it', async () => {
    const system = withActor(t.ctx, systemActor('test'), 'test')
    const member = await makeUser(t, { role: 'member', clients: [workspaceB] })
    const browser = await signIn(t, member, overHttp(base))
    const { verifier, challenge } = pkce()
    // contacts:write only: a member may give it, a viewer may not.
    const { code } = await authorizeAs(
      browser,
      { clientId: publicClient, redirectUri: REDIRECT, scope: 'contacts:write', challenge },
      { workspace: workspaceB },
    )
    const tokens = await exchangeCode(base, {
      code: code!,
      redirectUri: REDIRECT,
      verifier,
      clientId: publicClient,
    })
    expect(tokens.status).toBe(200)
    expect(tokens.body.scope).toBe('contacts:write')
    const refresh = (token: string) =>
      form(base, '/oauth2/token', {
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: publicClient,
      })

    await invoke(updateUserVerb, system, { id: member.id, role: 'viewer' })
    const refused = await refresh(tokens.body.refresh_token as string)
    expect(refused.status).toBe(400)
    expect(refused.body).toEqual({
      error: 'invalid_grant',
      error_description: "The user's role no longer allows any scope of this grant",
    })
    // The grant is revoked with it: its access token no longer works, even once the role is back.
    expect((await rest('/api/v1/contacts', tokens.body.access_token as string)).status).toBe(401)
    await invoke(updateUserVerb, system, { id: member.id, role: 'member' })
    expect((await refresh(tokens.body.refresh_token as string)).body.error).toBe('invalid_grant')
  })
})

describe('client credentials', () => {
  let id: string
  let secret: string
  beforeAll(async () => {
    const created = await t.call('POST', `/api/v1/oauth-clients`, {
      body: {
        name: 'Reporting',
        redirect_uris: [],
        confidential: true,
        scopes: ['campaigns:read', 'contacts:read', 'contacts:write', 'analytics:read'],
        client_id: workspaceB,
      },
    })
    expect(created.status).toBe(200)
    id = created.body.data.oauth_client_id
    secret = created.body.data.client_secret
    expect(secret).toBeString()
    const listed = await t.call('GET', '/api/v1/oauth-clients')
    expect(JSON.stringify(listed.body)).not.toContain(secret)
  })

  test('limited to campaigns:read contacts:read analytics:read; anything else is invalid_scope', async () => {
    const res = await form(
      base,
      '/oauth2/token',
      { grant_type: 'client_credentials' },
      { authorization: basic(id, secret) },
    )
    expect(res.status).toBe(200)
    expect(res.body.scope).toBe('campaigns:read contacts:read analytics:read')
    expect(res.body.refresh_token).toBeUndefined()
    expect((await rest('/api/v1/contacts', res.body.access_token as string)).status).toBe(200)
    const claims = JSON.parse(
      Buffer.from((res.body.access_token as string).split('.')[1]!, 'base64url').toString(),
    )
    expect(claims.tenant).toBe(workspaceB)
    expect(claims.sub).toBe(id)

    const refused = await form(
      base,
      '/oauth2/token',
      { grant_type: 'client_credentials', scope: 'contacts:read contacts:write' },
      { authorization: basic(id, secret) },
    )
    expect(refused.status).toBe(400)
    expect(refused.body.error).toBe('invalid_scope')
  })

  test('client authentication: wrong secret → 401 invalid_client with a Basic challenge; secret in the body works', async () => {
    const wrong = await form(
      base,
      '/oauth2/token',
      { grant_type: 'client_credentials' },
      { authorization: basic(id, 'nope') },
    )
    expect(wrong.status).toBe(401)
    expect(wrong.body.error).toBe('invalid_client')
    expect(wrong.headers.get('www-authenticate')).toStartWith('Basic')
    const post = await form(base, '/oauth2/token', {
      grant_type: 'client_credentials',
      client_id: id,
      client_secret: secret,
      scope: 'analytics:read',
    })
    expect(post.status).toBe(200)
    expect(post.body.scope).toBe('analytics:read')
    // A public client may not use client credentials.
    const pub = await form(base, '/oauth2/token', {
      grant_type: 'client_credentials',
      client_id: publicClient,
    })
    expect(pub.body.error).toBe('unauthorized_client')
  })
})

describe('token endpoint errors (RFC 6749 §5.2)', () => {
  test.each([
    [{ client_id: 'x' }, 400, 'invalid_request'],
    [{ grant_type: 'password', client_id: '' }, 401, 'invalid_client'],
    [{ grant_type: 'password', client_id: 'PUBLIC' }, 400, 'unsupported_grant_type'],
    [{ grant_type: 'authorization_code', client_id: 'PUBLIC' }, 400, 'invalid_request'],
    [
      { grant_type: 'authorization_code', client_id: 'PUBLIC', code: 'nope', code_verifier: 'v'.repeat(43) },
      400,
      'invalid_grant',
    ],
    [{ grant_type: 'refresh_token', client_id: 'PUBLIC', refresh_token: 'nope' }, 400, 'invalid_grant'],
    [
      { grant_type: 'authorization_code', client_id: '00000000-0000-7000-8000-000000000000' },
      401,
      'invalid_client',
    ],
  ])('%j → %i %s', async (fields, status, error) => {
    const body = Object.fromEntries(
      Object.entries(fields).map(([k, v]) => [k, v === 'PUBLIC' ? publicClient : v]),
    )
    const res = await form(base, '/oauth2/token', body as Record<string, string>)
    expect(res.status).toBe(status)
    expect(res.body).toEqual({ error, error_description: expect.any(String) })
  })

  test('a JSON body is invalid_request', async () => {
    const res = await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials' }),
    })
    expect(res.status).toBe(400)
    expect((await res.json()).error).toBe('invalid_request')
  })
})

describe('revocation (RFC 7009)', () => {
  test('revoking an access token ends it alone; revoking a refresh token ends the grant; unknown tokens answer 200', async () => {
    const a = await codeFlow('contacts:read')
    const revokeAccess = await form(base, '/oauth2/revoke', {
      token: a.access_token,
      client_id: publicClient,
    })
    expect(revokeAccess.status).toBe(200)
    expect((await rest('/api/v1/contacts', a.access_token)).status).toBe(401)
    const refreshed = await form(base, '/oauth2/token', {
      grant_type: 'refresh_token',
      refresh_token: a.refresh_token,
      client_id: publicClient,
    })
    expect(refreshed.status).toBe(200)
    expect((await rest('/api/v1/contacts', refreshed.body.access_token as string)).status).toBe(200)

    const r = await form(base, '/oauth2/revoke', {
      token: refreshed.body.refresh_token as string,
      token_type_hint: 'refresh_token',
      client_id: publicClient,
    })
    expect(r.status).toBe(200)
    expect((await rest('/api/v1/contacts', refreshed.body.access_token as string)).status).toBe(401)
    const after = await form(base, '/oauth2/token', {
      grant_type: 'refresh_token',
      refresh_token: refreshed.body.refresh_token as string,
      client_id: publicClient,
    })
    expect(after.body.error).toBe('invalid_grant')

    expect(
      (await form(base, '/oauth2/revoke', { token: 'nothing-like-a-token', client_id: publicClient })).status,
    ).toBe(200)
  })

  test('deleting the OAuth client ends its tokens', async () => {
    const created = await t.call('POST', '/api/v1/oauth-clients', {
      body: { name: 'Short-lived', redirect_uris: [], confidential: true, scopes: ['contacts:read'] },
    })
    const { oauth_client_id: id, client_secret: secret } = created.body.data
    const tok = await form(
      base,
      '/oauth2/token',
      { grant_type: 'client_credentials' },
      { authorization: basic(id, secret) },
    )
    expect((await rest('/api/v1/contacts', tok.body.access_token as string)).status).toBe(200)
    expect((await t.call('DELETE', `/api/v1/oauth-clients/${id}`)).status).toBe(200)
    expect((await rest('/api/v1/contacts', tok.body.access_token as string)).status).toBe(401)
    expect((await t.call('DELETE', `/api/v1/oauth-clients/${id}`)).status).toBe(404)
  })
})

describe('dynamic registration (RFC 7591)', () => {
  test('a public client with loopback or https redirect URIs registers and completes the code flow', async () => {
    const res = await fetch(`${base}/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'CLI',
        redirect_uris: ['http://localhost:7777/cb', 'https://app.example/cb'],
      }),
    })
    expect(res.status).toBe(201)
    const reg = await res.json()
    expect(reg.token_endpoint_auth_method).toBe('none')
    const { verifier, challenge } = pkce()
    const { code } = await authorizeAs(
      owner,
      { clientId: reg.client_id, redirectUri: 'http://localhost:7777/cb', scope: 'contacts:read', challenge },
      { workspace: workspaceA },
    )
    const tok = await exchangeCode(base, {
      code: code!,
      redirectUri: 'http://localhost:7777/cb',
      verifier,
      clientId: reg.client_id,
    })
    expect(tok.status).toBe(200)
  })

  test.each([
    [{ redirect_uris: ['http://app.example/cb'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: [] }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['https://a.example/cb#frag'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['https://a.example/c\u0000b'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['https://a.example/c\nb'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['http://localhost/cb\ud800'] }, 'invalid_redirect_uri'],
    [
      { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'client_secret_basic' },
      'invalid_client_metadata',
    ],
    [
      { redirect_uris: ['https://a.example/cb'], grant_types: ['client_credentials'] },
      'invalid_client_metadata',
    ],
    [{ redirect_uris: ['https://a.example/cb'], scope: 'admin:*' }, 'invalid_client_metadata'],
  ])('%j → 400 %s', async (body, error) => {
    const res = await fetch(`${base}/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ error, error_description: expect.any(String) })
  })
})

describe('who may consent to what', () => {
  test('a viewer can grant only read scopes, and only in their workspaces', async () => {
    const viewer = await signIn(
      t,
      await makeUser(t, { role: 'member', clients: [workspaceB] }),
      overHttp(base),
    )
    const { challenge } = pkce()
    const q = authorizeQuery({
      clientId: publicClient,
      redirectUri: REDIRECT,
      scope: 'contacts:read',
      challenge,
    })
    const page = await viewer.get(`/oauth2/authorize?${q}`)
    expect(consentForm(page.text).workspaces).toEqual([workspaceB])
    viewer.csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? ''
    const post = await viewer.post(consentForm(page.text).action, {
      client_id: workspaceA,
      scope: 'contacts:read',
      decision: 'allow',
    })
    expect(post.status).toBe(400)
    const noCsrf = await viewer.post(consentForm(page.text).action, {
      _csrf: null,
      client_id: workspaceB,
      scope: 'contacts:read',
      decision: 'allow',
    })
    expect(noCsrf.status).toBe(403)
  })
})

describe('MCP with an OAuth access token (official SDK clients)', () => {
  test.each(SDKS)('%s: tools follow the token’s scopes and act in its workspace', async (sdk) => {
    const tokens = await codeFlow('contacts:read', workspaceB)
    const mcp = await connectMcp(sdk, `${base}/mcp/v1`, tokens.access_token)
    try {
      const names = (await mcp.listTools()).tools.map((tool: { name: string }) => tool.name)
      expect(names).toContain('list_contacts')
      expect(names).not.toContain('create_contact')
      expect(names).not.toContain('create_campaign')
      const listed = answerOf(await mcp.callTool({ name: 'list_contacts', arguments: {} }))
      for (const c of listed.data) expect(c.client_id).toBe(workspaceB)
    } finally {
      await mcp.close()
    }
  })

  test('the server card marks OAuth available', async () => {
    const card = await (await fetch(`${base}/.well-known/mcp/server-card.json`)).json()
    const oauth = card.authentication.methods.find((m: { type: string }) => m.type === 'oauth2')
    expect(oauth.available).toBe(true)
  })
})
