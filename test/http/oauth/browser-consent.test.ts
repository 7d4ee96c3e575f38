// The OAuth consent step in real Chromium (DESIGN §5): the authorize link signs a user in through
// the portal's login, shows the consent page (no serious axe violations, its CSP intact), and
// Allow sends the browser to the client's redirect URI with a code that the token endpoint takes.
import { afterAll, describe, expect, test } from 'bun:test'
import {
  expectCleanPage,
  expectNoSeriousViolations,
  loginOk,
  screenshot,
  usePortal,
} from '../../helpers/browser'
import { authorizeQuery, pkce } from './oauth-client'

const portal = await usePortal()
// The client: a loopback server that receives the redirect (as a native app or CLI would).
const received: URL[] = []
const callback = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(req) {
    received.push(new URL(req.url))
    return new Response('<!doctype html><title>done</title><p>You can close this window.</p>', {
      headers: { 'content-type': 'text/html' },
    })
  },
})
afterAll(() => callback.stop(true))
const REDIRECT = `http://127.0.0.1:${callback.port}/cb`

describe('OAuth consent (browser)', () => {
  test('sign in at the authorize link → consent → Allow → the client gets a code that exchanges for a token', async () => {
    const created = await portal.herald.call('POST', '/api/v1/oauth-clients', {
      body: {
        name: 'Desktop app',
        redirect_uris: [REDIRECT],
        confidential: false,
        scopes: ['contacts:read', 'contacts:write'],
      },
    })
    const clientId = created.body.data.oauth_client_id
    const { verifier, challenge } = pkce()
    const q = authorizeQuery({
      clientId,
      redirectUri: REDIRECT,
      scope: 'contacts:read contacts:write',
      challenge,
      state: 'browser-state',
    })
    const user = await portal.user('admin')
    const context = await portal.anonymous()
    const page = await context.newPage()
    await page.goto(`${portal.url}/oauth2/authorize?${q}`)
    expect(new URL(page.url()).pathname).toBe('/admin/login')
    await loginOk(page, user.email, user.password)
    expect(new URL(page.url()).pathname).toBe('/oauth2/authorize')
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Desktop app')
    await expectNoSeriousViolations(page)
    await screenshot(page, '/oauth2/authorize')
    await expectCleanPage(page)

    await page.getByLabel(/contacts:write/).uncheck()
    await Promise.all([
      page.waitForURL(`${REDIRECT}?**`),
      page.getByRole('button', { name: 'Allow' }).click(),
    ])
    const back = received.filter((u) => u.pathname === '/cb').at(-1)!
    expect(back.searchParams.get('state')).toBe('browser-state')
    const code = back.searchParams.get('code')!
    const token = await fetch(`${portal.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: clientId,
      }),
    })
    expect(token.status).toBe(200)
    expect((await token.json()).scope).toBe('contacts:read')
    await context.close()
  })
})
