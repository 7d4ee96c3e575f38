import { describe, expect, test } from 'bun:test'
import { portalSessions } from '../../../src/db/schema'
import { createTestApp } from '../../helpers/app'
import { browser, csrfOf, makeUser, OWNER_PASSWORD, PORTAL_ENV, signIn, submitLogin } from './portal-helpers'

// Sign-in, sessions and lockout (DESIGN §9a), with the app's clock driven by hand.

const HOUR = 60 * 60 * 1000
const clock = { t: Date.UTC(2026, 0, 5, 9), now: () => clock.t }
const t = await createTestApp({ clock, env: PORTAL_ENV })

describe('without a session', () => {
  test.each([
    ['/admin', '/admin'],
    ['/admin/contacts', '/admin/contacts'],
    ['/admin/api-keys', '/admin/api-keys'],
    ['/admin/api-keys?cursor=abc', '/admin/api-keys?cursor=abc'],
    ['/admin/no-such-page', '/admin/no-such-page'],
  ])('GET %s → 303 to the sign-in page with next', async (path, next) => {
    const res = await browser(t).get(path)
    expect(res.status).toBe(303)
    expect(res.location).toBe(`/admin/login?next=${next.replace('?', '%3F').replace('=', '%3D')}`)
  })

  test('a POST without a session → 303 to sign in, nothing done', async () => {
    const res = await browser(t).post('/admin/api-keys', { name: 'x', scopes: 'contacts:read' })
    expect(res.status).toBe(303)
    expect(res.location).toStartWith('/admin/login')
  })
})

describe('sign-in', () => {
  test('the form has labelled email and password fields and a CSRF token', async () => {
    const res = await browser(t).get('/admin/login?next=/admin/api-keys')
    expect(res.status).toBe(200)
    expect(res.text).toContain('<label for="email">')
    expect(res.text).toContain('<label for="password">')
    expect(res.text).toContain('name="next" value="/admin/api-keys"')
    expect(csrfOf(res.text)).not.toBe('')
  })

  test('success: session cookie (HttpOnly, SameSite=Lax, not Secure over http) and redirect to next', async () => {
    const b = browser(t)
    const res = await submitLogin(b, 'admin@localhost', OWNER_PASSWORD, { next: '/admin/api-keys' })
    expect(res.status).toBe(303)
    expect(res.location).toBe('/admin/api-keys')
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('herald_session='))!
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Lax')
    expect(cookie).toContain('Path=/;')
    expect(cookie).not.toContain('Secure')
    expect((await b.get('/admin/api-keys')).status).toBe(200)
  })

  test('the email is not case-sensitive', async () => {
    const res = await submitLogin(browser(t), 'Admin@LOCALHOST', OWNER_PASSWORD)
    expect(res.status).toBe(303)
  })

  test.each([
    ['https://evil.example/', '/admin'],
    ['//evil.example/admin', '/admin'],
    ['/admin//evil.example', '/admin'],
    ['/adminx', '/admin'],
    ['/api/v1/contacts', '/admin'],
    ['/admin/login', '/admin'],
    ['/admin/contacts?status=active', '/admin/contacts?status=active'],
  ])('next=%s → redirect to %s', async (next, expected) => {
    const res = await submitLogin(browser(t), 'admin@localhost', OWNER_PASSWORD, { next })
    expect(res.location).toBe(expected)
  })

  test.each([
    ['wrong password', 'admin@localhost', 'nope-nope-nope'],
    ['unknown email', 'nobody@example.com', OWNER_PASSWORD],
    ['empty fields', '', ''],
    ['an email holding U+0000', 'admin\u0000@localhost', OWNER_PASSWORD],
    ['an email holding an unpaired surrogate', 'admin\ud800@localhost', OWNER_PASSWORD],
  ])('%s: the form again, status 200, message in role="alert", no session', async (_n, email, password) => {
    const b = browser(t)
    const res = await submitLogin(b, email, password)
    expect(res.status).toBe(200)
    expect(res.text).toMatch(/role="alert"[^>]*>Wrong email or password/)
    expect(b.cookies.has('herald_session')).toBe(false)
  })

  test('a POST to /admin/login with the form cookie but without (or with a wrong) token → 403, no session', async () => {
    for (const token of [null, 'forged']) {
      const b = browser(t)
      await b.get('/admin/login')
      const res = await b.post('/admin/login', {
        email: 'admin@localhost',
        password: OWNER_PASSWORD,
        _csrf: token,
      })
      expect(res.status).toBe(403)
      expect(b.cookies.has('herald_session')).toBe(false)
    }
  })

  test('a script that never loaded the form signs in with email and password alone; another site cannot', async () => {
    const script = browser(t)
    const ok = await script.post('/admin/login', {
      email: 'admin@localhost',
      password: OWNER_PASSWORD,
      _csrf: null,
    })
    expect(ok.status).toBe(303)
    expect(script.cookies.has('herald_session')).toBe(true)
    const wrong = await browser(t).post('/admin/login', {
      email: 'admin@localhost',
      password: 'nope',
      _csrf: null,
    })
    expect(wrong.status).toBe(200)
    expect(wrong.text).toMatch(/role="alert"/)
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
    ]
    for (const headers of foreign) {
      const b = browser(t)
      const res = await b.post(
        '/admin/login',
        { email: 'admin@localhost', password: OWNER_PASSWORD, _csrf: null },
        headers,
      )
      expect(res.status).toBe(403)
      expect(b.cookies.has('herald_session')).toBe(false)
    }
  })

  test('the session cookie is Secure when the public URL is https', async () => {
    const secure = await createTestApp({
      env: { ...PORTAL_ENV, HERALD_PUBLIC_URL: 'https://herald.example' },
    })
    const res = await submitLogin(browser(secure), 'admin@localhost', OWNER_PASSWORD)
    expect(res.headers.getSetCookie().find((c) => c.startsWith('herald_session='))).toContain('Secure')
  })
})

describe('session lifetime (12 h idle, 7 days absolute)', () => {
  test('idle: alive at 11 h 59 min since the last request, gone at 12 h', async () => {
    const b = await signIn(t)
    clock.t += 12 * HOUR - 60_000
    expect((await b.get('/admin')).status).toBe(200)
    clock.t += 12 * HOUR - 1
    expect((await b.get('/admin')).status).toBe(200)
    clock.t += 12 * HOUR
    const res = await b.get('/admin')
    expect(res.status).toBe(303)
    expect(res.location).toStartWith('/admin/login')
  })

  test('absolute: a session used every 6 h ends 7 days after sign-in', async () => {
    const b = await signIn(t)
    const start = clock.t
    while (clock.t + 6 * HOUR < start + 7 * 24 * HOUR) {
      clock.t += 6 * HOUR
      expect((await b.get('/admin')).status).toBe(200)
    }
    clock.t = start + 7 * 24 * HOUR
    expect((await b.get('/admin')).status).toBe(303)
  })

  test('sign-out ends the session (the old cookie no longer works)', async () => {
    const b = await signIn(t)
    const token = b.cookies.get('herald_session')!
    const res = await b.post('/admin/logout')
    expect(res.status).toBe(303)
    expect(res.location).toBe('/admin/login')
    expect(b.cookies.has('herald_session')).toBe(false)
    const again = browser(t)
    again.cookies.set('herald_session', token)
    expect((await again.get('/admin')).status).toBe(303)
  })

  test('only a hash of the token is stored', async () => {
    const b = await signIn(t)
    const token = b.cookies.get('herald_session')!
    const rows = await t.ctx.db.select({ tokenHash: portalSessions.tokenHash }).from(portalSessions)
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.some((r) => r.tokenHash === token)).toBe(false)
    expect(rows.some((r) => r.tokenHash === new Bun.CryptoHasher('sha256').update(token).digest('hex'))).toBe(
      true,
    )
  })
})

// Each attempt verifies an argon2id hash (slow on purpose): these tests get a longer timeout.
const SLOW = 60_000

describe('lockout: 10 failures in 15 minutes lock that email from that IP; 30 lock the IP', () => {
  const loginFrom = async (email: string, password: string, ip: string) => {
    const b = browser(t)
    const form = await b.get('/admin/login')
    b.csrf = csrfOf(form.text)
    return b.post('/admin/login', { email, password }, { 'x-forwarded-for': ip })
  }

  test(
    'per email and IP: the 10th failure locks that pair for 15 minutes, even with the right password; the email elsewhere is not locked',
    async () => {
      const user = await makeUser(t, { role: 'admin' })
      for (let i = 0; i < 9; i++) {
        const r = await loginFrom(user.email, 'wrong-password-x', '10.0.1.1')
        expect(r.text).toContain('Wrong email or password')
      }
      const tenth = await loginFrom(user.email, 'wrong-password-x', '10.0.1.1')
      expect(tenth.text).toMatch(/role="alert"[^>]*>Too many failed sign-ins/)
      const right = await loginFrom(user.email, user.password, '10.0.1.1')
      expect(right.status).toBe(200)
      expect(right.text).toContain('Too many failed sign-ins')
      // The same email from another IP, and another user from that IP, are not locked.
      expect((await loginFrom(user.email, user.password, '10.0.1.50')).status).toBe(303)
      const other = await makeUser(t, { role: 'viewer' })
      expect((await loginFrom(other.email, other.password, '10.0.1.1')).status).toBe(303)
      clock.t += 15 * 60 * 1000 - 1
      expect((await loginFrom(user.email, user.password, '10.0.1.1')).status).toBe(200)
      clock.t += 1
      expect((await loginFrom(user.email, user.password, '10.0.1.1')).status).toBe(303)
    },
    SLOW,
  )

  test(
    'an email holding U+0000 counts as a failure like any other: the 10th locks the pair',
    async () => {
      for (let i = 0; i < 9; i++)
        expect((await loginFrom('x\u0000@example.com', 'wrong-password-x', '10.0.3.1')).text).toContain(
          'Wrong email or password',
        )
      const tenth = await loginFrom('x\u0000@example.com', 'wrong-password-x', '10.0.3.1')
      expect(tenth.text).toMatch(/role="alert"[^>]*>Too many failed sign-ins/)
    },
    SLOW,
  )

  test(
    'per IP: 30 failures for different emails lock the IP, not the emails elsewhere',
    async () => {
      const user = await makeUser(t, { role: 'member' })
      for (let i = 0; i < 29; i++) await loginFrom(`spray${i}@example.com`, 'wrong-password-x', '10.0.2.1')
      expect((await loginFrom(user.email, user.password, '10.0.2.1')).status).toBe(303)
      await loginFrom('spray29@example.com', 'wrong-password-x', '10.0.2.1')
      const locked = await loginFrom(user.email, user.password, '10.0.2.1')
      expect(locked.status).toBe(200)
      expect(locked.text).toContain('Too many failed sign-ins')
      expect((await loginFrom(user.email, user.password, '10.0.2.2')).status).toBe(303)
      clock.t += 15 * 60 * 1000
      expect((await loginFrom(user.email, user.password, '10.0.2.1')).status).toBe(303)
    },
    SLOW,
  )

  test(
    'failures older than 15 minutes do not count',
    async () => {
      const user = await makeUser(t, { role: 'admin' })
      for (let i = 0; i < 9; i++) await loginFrom(user.email, 'wrong-password-x', '10.0.3.1')
      clock.t += 15 * 60 * 1000 + 1
      for (let i = 0; i < 9; i++) await loginFrom(user.email, 'wrong-password-x', '10.0.3.1')
      expect((await loginFrom(user.email, user.password, '10.0.3.1')).status).toBe(303)
    },
    SLOW,
  )
})
