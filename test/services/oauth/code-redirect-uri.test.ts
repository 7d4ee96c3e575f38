import { expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { users } from '../../../src/db/schema'
import { checkAuthorizationRequest } from '../../../src/services/oauth/authorize'
import { findOAuthClient } from '../../../src/services/oauth/clients'
import { OAuthError } from '../../../src/services/oauth/errors'
import { createAuthorizationCode, exchangeCode } from '../../../src/services/oauth/grants'
import { createTestApp } from '../../helpers/app'

// OAuth 2.1 §4.1.3: the token request repeats redirect_uri only if the authorization request
// named it. A client with one registered redirect URI may leave it out of both.

const t = await createTestApp()
const REDIRECT = 'https://app.example/cb'
const VERIFIER = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~'
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url')

async function setup() {
  const made = await t.call('POST', '/api/v1/oauth-clients', {
    body: { name: 'App', redirect_uris: [REDIRECT], confidential: false, scopes: ['contacts:read'] },
  })
  const client = (await findOAuthClient(t.ctx, made.body.data.oauth_client_id))!
  const user = (await t.ctx.db.select({ id: users.id }).from(users).limit(1))[0]!
  const code = async (redirectUriGiven: boolean) =>
    await createAuthorizationCode(t.ctx, {
      client,
      userId: user.id,
      tenant: t.defaultClientId,
      scopes: ['contacts:read'],
      redirectUri: REDIRECT,
      redirectUriGiven,
      codeChallenge: CHALLENGE,
      resource: null,
    })
  return { client, code }
}

test('the authorization request records whether redirect_uri was named', async () => {
  const { client } = await setup()
  const params = (extra: Record<string, string>) => {
    const all: Record<string, string> = {
      response_type: 'code',
      client_id: client.id,
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
      ...extra,
    }
    return (name: string) => all[name] ?? null
  }
  const without = await checkAuthorizationRequest(t.ctx, params({}))
  const named = await checkAuthorizationRequest(t.ctx, params({ redirect_uri: REDIRECT }))
  expect(without.ok && without.request.redirectUriGiven).toBe(false)
  expect(named.ok && named.request.redirectUriGiven).toBe(true)
})

test('not named at authorize → may be left out at the token endpoint (or repeated)', async () => {
  const { client, code } = await setup()
  expect(
    (await exchangeCode(t.ctx, client, { code: await code(false), code_verifier: VERIFIER })).access_token,
  ).toBeString()
  expect(
    (
      await exchangeCode(t.ctx, client, {
        code: await code(false),
        redirect_uri: REDIRECT,
        code_verifier: VERIFIER,
      })
    ).access_token,
  ).toBeString()
  expect(
    async () =>
      await exchangeCode(t.ctx, client, {
        code: await code(false),
        redirect_uri: 'https://app.example/other',
        code_verifier: VERIFIER,
      }),
  ).toThrow(OAuthError)
})

test('named at authorize → required at the token endpoint', async () => {
  const { client, code } = await setup()
  let caught: unknown
  try {
    await exchangeCode(t.ctx, client, { code: await code(true), code_verifier: VERIFIER })
  } catch (err) {
    caught = err
  }
  expect(caught).toBeInstanceOf(OAuthError)
  expect((caught as OAuthError).error).toBe('invalid_grant')
  expect(
    (
      await exchangeCode(t.ctx, client, {
        code: await code(true),
        redirect_uri: REDIRECT,
        code_verifier: VERIFIER,
      })
    ).access_token,
  ).toBeString()
})
