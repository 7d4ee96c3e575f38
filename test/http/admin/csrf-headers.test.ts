import { describe, expect, test } from 'bun:test'
import { CSP } from '../../../src/http/admin/headers'
import { sections } from '../../../src/http/admin/sections'
import { createTestApp } from '../../helpers/app'
import { browser, csrfOf, PORTAL_ENV, signIn } from './portal-helpers'

// CSRF (every unsafe request carries the session's token) and the security headers of every
// portal answer (DESIGN §9a).

const t = await createTestApp({ env: PORTAL_ENV })

describe('CSRF', () => {
  const posts: [string, Record<string, string>][] = [
    ['/admin/api-keys', { name: 'csrf probe', scopes: 'contacts:read' }],
    ['/admin/account', { timezone: 'Asia/Tokyo' }],
    ['/admin/workspace', { workspace: '' }],
    ['/admin/logout', {}],
  ]

  test.each(posts)('POST %s without a token → 403 page, nothing changed', async (path, fields) => {
    const b = await signIn(t)
    const res = await b.post(path, { ...fields, _csrf: null })
    expect(res.status).toBe(403)
    expect(res.headers.get('content-type')).toContain('text/html')
    expect(res.text).toContain('security token')
    // Still signed in, and still in the Default workspace, time zone unchanged.
    const home = await b.get('/admin/account')
    expect(home.status).toBe(200)
    expect(home.text).toMatch(/<option value="UTC" selected>/)
  })

  test.each(posts)('POST %s with a wrong token → 403', async (path, fields) => {
    const b = await signIn(t)
    expect((await b.post(path, { ...fields, _csrf: `${b.csrf}x` })).status).toBe(403)
    expect((await b.post(path, { ...fields, _csrf: '' })).status).toBe(403)
  })

  test("another session's token is refused", async () => {
    const a = await signIn(t)
    const b = await signIn(t)
    expect(a.csrf).not.toBe(b.csrf)
    expect((await a.post('/admin/account', { timezone: 'Asia/Tokyo', _csrf: b.csrf })).status).toBe(403)
  })

  test('the X-CSRF-Token header (htmx) is accepted in place of the field', async () => {
    const b = await signIn(t)
    const res = await b.post(
      '/admin/account',
      { timezone: 'Europe/Paris', _csrf: null },
      { 'x-csrf-token': b.csrf },
    )
    expect(res.status).toBe(303)
    expect((await b.get('/admin/account')).text).toMatch(/<option value="Europe\/Paris" selected>/)
  })

  test('a cross-site request is refused even with the token', async () => {
    const b = await signIn(t)
    const res = await b.post('/admin/account', { timezone: 'Asia/Tokyo' }, { 'sec-fetch-site': 'cross-site' })
    expect(res.status).toBe(403)
  })

  test('the layout gives htmx the token: meta csrf-token and hx-headers on body', async () => {
    const b = await signIn(t)
    const html = (await b.get('/admin')).text
    const token = csrfOf(html)
    expect(token).not.toBe('')
    expect(html).toContain(`hx-headers='{"X-CSRF-Token": "${token}"}'`)
    expect(html).toContain(`name="_csrf" value="${token}"`)
    // Masked afresh for every answer (BREACH): another page carries another string, also valid.
    const again = csrfOf((await b.get('/admin')).text)
    expect(again).not.toBe(token)
    expect((await b.post('/admin/account', { timezone: 'UTC', _csrf: again })).status).toBe(303)
    expect((await b.post('/admin/account', { timezone: 'UTC', _csrf: token })).status).toBe(303)
    expect(html).toContain('"allowEval":false')
    expect(html).not.toContain('hx-on')
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/)
    expect(html).not.toMatch(/\sstyle="/)
  })
})

describe('security headers on every portal answer', () => {
  const expectHeaders = (h: Headers) => {
    expect(h.get('content-security-policy')).toBe(CSP)
    expect(h.get('x-frame-options')).toBe('DENY')
    expect(h.get('referrer-policy')).toBe('same-origin')
    expect(h.get('x-content-type-options')).toBe('nosniff')
  }

  test('the CSP allows no inline script or style and no eval', () => {
    expect(CSP).not.toContain('unsafe-inline')
    expect(CSP).not.toContain('unsafe-eval')
    expect(CSP).toContain("script-src 'self'")
    expect(CSP).toContain("style-src 'self'")
    expect(CSP).toContain("frame-ancestors 'none'")
  })

  const pages = sections.flatMap((s) =>
    s.routes.filter((r) => r.method === 'GET' && !r.path.includes(':')).map((r) => r.path),
  )

  test.each(pages)('GET %s (signed in, full page and htmx partial)', async (path) => {
    const b = await signIn(t)
    const full = await b.get(path)
    expect(full.status).toBe(200)
    expectHeaders(full.headers)
    // Pages (not downloads such as a CSV export): never cached, and a partial for htmx.
    if (!full.headers.get('content-type')?.startsWith('text/html')) return
    expect(full.headers.get('cache-control')).toBe('no-store')
    const partial = await b.get(path, { 'hx-request': 'true' })
    expect(partial.status).toBe(200)
    expectHeaders(partial.headers)
    expect(partial.text).not.toContain('<html')
    expect(partial.text).toContain('hx-swap-oob="true"')
  })

  test.each([
    ['sign-in form', '/admin/login'],
    ['redirect to sign-in', '/admin/api-keys'],
    ['static asset', '/admin/static/app.js'],
    ['unknown asset', '/admin/static/nope.js'],
  ])('%s (%s)', async (_n, path) => {
    expectHeaders((await browser(t).get(path)).headers)
  })

  test('error pages (404, 405, 403) and POST answers', async () => {
    const b = await signIn(t)
    const notFound = await b.get('/admin/no-such-page')
    expect(notFound.status).toBe(404)
    expectHeaders(notFound.headers)
    const wrongMethod = await b.post('/admin')
    expect(wrongMethod.status).toBe(405)
    expectHeaders(wrongMethod.headers)
    const refused = await b.post('/admin/account', { _csrf: null })
    expectHeaders(refused.headers)
    const ok = await b.post('/admin/account', { timezone: 'UTC' })
    expect(ok.status).toBe(303)
    expectHeaders(ok.headers)
  })
})

describe('static assets', () => {
  test('versioned URL: cached a year; gzip when accepted; other versions not cached', async () => {
    const b = await signIn(t)
    const html = (await b.get('/admin')).text
    const url = /<script src="(\/admin\/static\/htmx\.min\.js\?v=[0-9a-f]+)"/.exec(html)![1]!
    const res = await t.app.handle(
      new Request(`http://localhost:8080${url}`, { headers: { 'accept-encoding': 'gzip, br' } }),
    )
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(res.headers.get('content-encoding')).toBe('gzip')
    expect(res.headers.get('content-type')).toContain('javascript')
    const gz = new Uint8Array(await res.arrayBuffer())
    const text = new TextDecoder().decode(Bun.gunzipSync(gz))
    expect(text).toContain('htmx')
    expect(gz.byteLength).toBeLessThan(text.length / 2)
    const plain = await t.app.handle(new Request(`http://localhost:8080${url}`))
    expect(plain.headers.get('content-encoding')).toBeNull()
    const stale = await browser(t).get('/admin/static/htmx.min.js?v=000000000000')
    expect(stale.status).toBe(200)
    expect(stale.headers.get('cache-control')).toBe('no-cache')
  })

  test('the layout loads htmx, Pico CSS and our own app.js/app.css, nothing from another origin', async () => {
    const html = (await (await signIn(t)).get('/admin')).text
    for (const name of ['htmx.min.js', 'pico.min.css', 'app.js', 'app.css'])
      expect(html).toContain(`/admin/static/${name}?v=`)
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//)
  })
})

describe('compression', () => {
  test('pages are gzipped when accepted, and still carry every header', async () => {
    const b = await signIn(t)
    const html = (await b.get('/admin/api-keys')).text
    const res = await t.app.handle(
      new Request('http://localhost:8080/admin/api-keys', {
        headers: { cookie: `herald_session=${b.cookies.get('herald_session')}`, 'accept-encoding': 'gzip' },
      }),
    )
    expect(res.headers.get('content-encoding')).toBe('gzip')
    expect(res.headers.get('vary')).toContain('Accept-Encoding')
    expectHeadersOf(res.headers)
    const gz = new Uint8Array(await res.arrayBuffer())
    const text = new TextDecoder().decode(Bun.gunzipSync(gz))
    expect(text).toContain('<h1>API keys</h1>')
    expect(gz.byteLength).toBeLessThan(text.length / 2)
    expect(text.length).toBeGreaterThan(html.length / 2)
  })

  test('a token with a character added or the pad changed is refused', async () => {
    const b = await signIn(t)
    const token = b.csrf
    const [pad, masked] = token.split('.') as [string, string]
    const flipped = `${pad.slice(0, -1)}${pad.endsWith('A') ? 'B' : 'A'}.${masked}`
    for (const bad of [`${token}x`, `${token}=`, flipped, `.${masked}`, `${pad}.`])
      expect((await b.post('/admin/account', { timezone: 'UTC', _csrf: bad })).status).toBe(403)
  })
})

function expectHeadersOf(h: Headers) {
  expect(h.get('content-security-policy')).toBe(CSP)
  expect(h.get('x-frame-options')).toBe('DENY')
}
