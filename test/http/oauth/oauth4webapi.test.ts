import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import * as oauth from 'oauth4webapi'
import { createTestApp, type TestApp } from '../../helpers/app'
import { freePort } from '../../helpers/ports'
import { type Browser, PORTAL_ENV, signIn } from '../admin/portal-helpers'
import { authorizeAs, overHttp } from './oauth-client'

// Herald's authorization server driven by a standards-checking third-party client, oauth4webapi
// (panva), over real HTTP: discovery (the issuer must match), the code flow with PKCE S256 and the
// `iss` check on the redirect, refresh rotation, client credentials with Basic auth, revocation and
// RFC 6749 error bodies. oauth4webapi validates every response shape it is given, so a token
// answer that drifts from the RFCs fails here even where our own tests would not notice.

const port = freePort()
const base = `http://127.0.0.1:${port}`
const t: TestApp = await createTestApp({ env: { ...PORTAL_ENV, HERALD_PUBLIC_URL: base } })
const REDIRECT = 'http://127.0.0.1:9/callback'
// Plain http on loopback is the test server; oauth4webapi refuses it unless told.
const insecure = { [oauth.allowInsecureRequests]: true }

let as: oauth.AuthorizationServer
let owner: Browser
let publicClient: oauth.Client
let confidential: { client: oauth.Client; secret: string }

/** The code grant for the public client, sent and read by the library. */
const codeGrant = async (params: URLSearchParams, verifier: string) =>
  oauth.processAuthorizationCodeResponse(
    as,
    publicClient,
    await oauth.authorizationCodeGrantRequest(
      as,
      publicClient,
      oauth.None(),
      params,
      REDIRECT,
      verifier,
      insecure,
    ),
  )

/** The public client's refresh grant, sent and read by the library. */
const refresh = async (token: string) =>
  oauth.processRefreshTokenResponse(
    as,
    publicClient,
    await oauth.refreshTokenGrantRequest(as, publicClient, oauth.None(), token, insecure),
  )

/** The confidential client's client-credentials grant for `scope`, with `secret` in Basic auth. */
const clientCredentials = async (scope: string, secret = confidential.secret) =>
  oauth.processClientCredentialsResponse(
    as,
    confidential.client,
    await oauth.clientCredentialsGrantRequest(
      as,
      confidential.client,
      oauth.ClientSecretBasic(secret),
      new URLSearchParams({ scope }),
      insecure,
    ),
  )

async function apiWith(token: string, path: string) {
  return fetch(base + path, { headers: { authorization: `Bearer ${token}` } })
}

beforeAll(async () => {
  t.app.listen({ port, hostname: '127.0.0.1' })
  owner = await signIn(t, undefined, overHttp(base))
  const issuer = new URL(base)
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
  )
  const pub = await t.call('POST', '/api/v1/oauth-clients', {
    body: {
      name: 'oauth4webapi public',
      redirect_uris: [REDIRECT],
      confidential: false,
      scopes: ['contacts:read'],
    },
  })
  publicClient = { client_id: pub.body.data.oauth_client_id }
  const conf = await t.call('POST', '/api/v1/oauth-clients', {
    body: { name: 'oauth4webapi service', redirect_uris: [], confidential: true, scopes: ['contacts:read'] },
  })
  confidential = {
    client: { client_id: conf.body.data.oauth_client_id },
    secret: conf.body.data.client_secret,
  }
})

afterAll(async () => {
  await t.app.stop(true)
})

describe('oauth4webapi against Herald', () => {
  test('discovery: the metadata passes its checks and names S256 only', () => {
    expect(as.issuer).toBe(base)
    expect(as.code_challenge_methods_supported).toEqual(['S256'])
    expect(as.token_endpoint).toBe(`${base}/oauth2/token`)
  })

  test('code + PKCE: the redirect passes validateAuthResponse (state, iss), the token answer passes processAuthorizationCodeResponse, the token reads contacts; refresh rotates and the old refresh token is refused', async () => {
    const verifier = oauth.generateRandomCodeVerifier()
    const challenge = await oauth.calculatePKCECodeChallenge(verifier)
    const state = oauth.generateRandomState()
    const { redirect } = await authorizeAs(
      owner,
      { clientId: publicClient.client_id, redirectUri: REDIRECT, scope: 'contacts:read', challenge, state },
      { workspace: t.defaultClientId },
    )
    const params = oauth.validateAuthResponse(as, publicClient, redirect, state)
    const tokens = await codeGrant(params, verifier)
    expect(tokens.token_type).toBe('bearer')
    expect(tokens.scope).toBe('contacts:read')
    expect(tokens.expires_in).toBe(3600)
    expect((await apiWith(tokens.access_token, '/api/v1/contacts')).status).toBe(200)

    const refreshed = await refresh(tokens.refresh_token!)
    expect(refreshed.refresh_token).toBeString()
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
    // The used refresh token again: RFC 6749 §5.2 invalid_grant, read by the client library.
    const err = await refresh(tokens.refresh_token!).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(oauth.ResponseBodyError)
    expect((err as oauth.ResponseBodyError).error).toBe('invalid_grant')
    // Reuse revoked the whole chain: the rotated refresh token is dead too.
    const chain = await refresh(refreshed.refresh_token!).catch((e: unknown) => e)
    expect((chain as oauth.ResponseBodyError).error).toBe('invalid_grant')
  })

  test('a code exchanged with the wrong verifier is invalid_grant', async () => {
    const challenge = await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier())
    const { redirect } = await authorizeAs(
      owner,
      {
        clientId: publicClient.client_id,
        redirectUri: REDIRECT,
        scope: 'contacts:read',
        challenge,
        state: 's',
      },
      { workspace: t.defaultClientId },
    )
    const params = oauth.validateAuthResponse(as, publicClient, redirect, 's')
    const wrong = oauth.generateRandomCodeVerifier()
    const err = await codeGrant(params, wrong).catch((e: unknown) => e)
    expect((err as oauth.ResponseBodyError).error).toBe('invalid_grant')
  })

  test('client credentials with client_secret_basic, then RFC 7009 revocation ends the token', async () => {
    const { client, secret } = confidential
    const tokens = await clientCredentials('contacts:read')
    expect(tokens.refresh_token).toBeUndefined()
    expect((await apiWith(tokens.access_token, '/api/v1/contacts')).status).toBe(200)

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(
        as,
        client,
        oauth.ClientSecretBasic(secret),
        tokens.access_token,
        insecure,
      ),
    )
    expect((await apiWith(tokens.access_token, '/api/v1/contacts')).status).toBe(401)

    // A scope client credentials may not have: invalid_scope.
    const err = await clientCredentials('contacts:write').catch((e: unknown) => e)
    expect((err as oauth.ResponseBodyError).error).toBe('invalid_scope')
  })

  test('a wrong client secret is a 401 Basic challenge with invalid_client in the body (RFC 6749 §5.2)', async () => {
    const err = await clientCredentials('contacts:read', 'not-the-secret').catch((e: unknown) => e)
    // The client authenticated with a header, so the answer is a 401 challenge for its scheme.
    expect(err).toBeInstanceOf(oauth.WWWAuthenticateChallengeError)
    const challenge = err as oauth.WWWAuthenticateChallengeError
    expect(challenge.status).toBe(401)
    expect(challenge.cause.map((c) => c.scheme)).toEqual(['basic'])
    expect((await challenge.response.json()).error).toBe('invalid_client')
  })
})
