import { expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { users } from '../../../src/db/schema'
import { findOAuthClient } from '../../../src/services/oauth/clients'
import { createAuthorizationCode, exchangeCode, refresh } from '../../../src/services/oauth/grants'
import { BASE, createTestApp } from '../../helpers/app'

// A refreshed access token keeps the audience (RFC 8707 `resource`) of the authorization the
// user consented to: an MCP client's token for {public_url}/mcp/v1 stays one after refresh.

const t = await createTestApp()
const REDIRECT = 'https://app.example/cb'
const VERIFIER = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~'
const aud = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).aud

test('refresh keeps the resource audience of the code', async () => {
  const made = await t.call('POST', '/api/v1/oauth-clients', {
    body: { name: 'MCP app', redirect_uris: [REDIRECT], confidential: false, scopes: ['contacts:read'] },
  })
  expect(made.status).toBe(200)
  const client = (await findOAuthClient(t.ctx, made.body.data.oauth_client_id))!
  const user = (await t.ctx.db.select({ id: users.id }).from(users).limit(1))[0]!
  const resource = `${BASE}/mcp/v1`
  const code = await createAuthorizationCode(t.ctx, {
    client,
    userId: user.id,
    tenant: t.defaultClientId,
    scopes: ['contacts:read'],
    redirectUri: REDIRECT,
    codeChallenge: createHash('sha256').update(VERIFIER).digest('base64url'),
    resource,
  })
  const first = await exchangeCode(t.ctx, client, { code, redirect_uri: REDIRECT, code_verifier: VERIFIER })
  expect(aud(first.access_token)).toBe(resource)
  const second = await refresh(t.ctx, client, { refresh_token: first.refresh_token })
  expect(aud(second.access_token)).toBe(resource)
  const third = await refresh(t.ctx, client, { refresh_token: second.refresh_token })
  expect(aud(third.access_token)).toBe(resource)
})
