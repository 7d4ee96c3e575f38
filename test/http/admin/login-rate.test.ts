import { describe, expect, test } from 'bun:test'
import { loadConfig } from '../../../src/config'
import { createTestApp } from '../../helpers/app'
import { browser, csrfOf, OWNER_PASSWORD } from './portal-helpers'

// DESIGN §5: POST /admin/login has its own 20/min bucket per client IP (apart from the lockout
// after 10 failures), on the app's clock. This file keeps the default limit (no PORTAL_ENV raise).

const clock = { t: Date.UTC(2026, 0, 5, 9), now: () => clock.t }
const t = await createTestApp({ clock, env: { HERALD_ADMIN_PASSWORD: OWNER_PASSWORD } })

const post = async (ip: string, password = OWNER_PASSWORD) => {
  const b = browser(t)
  const form = await b.get('/admin/login')
  b.csrf = csrfOf(form.text)
  return b.post('/admin/login', { email: 'admin@localhost', password }, { 'x-forwarded-for': ip })
}

describe('sign-in rate: 20 a minute per IP', () => {
  test('20 posts pass, the 21st is 429 with Retry-After and an alert; a minute later allowed; another IP unaffected', async () => {
    // Successes and failures both count: it is a request bucket, not the failure lockout.
    for (let i = 0; i < 20; i++) {
      const res = await post('203.0.113.7', i % 2 ? OWNER_PASSWORD : 'wrong-password-1')
      expect(res.status).toBe(i % 2 ? 303 : 200)
    }
    const limited = await post('203.0.113.7')
    expect(limited.status).toBe(429)
    const retry = Number(limited.headers.get('retry-after'))
    expect(retry).toBeGreaterThanOrEqual(1)
    expect(retry).toBeLessThanOrEqual(60)
    expect(limited.text).toContain('role="alert"')
    expect(limited.text).toContain('Too many sign-in attempts')
    // The right password does not get through either, and no session cookie is set.
    expect(limited.headers.get('set-cookie') ?? '').not.toContain('herald_session')

    // Another address has its own bucket.
    expect((await post('198.51.100.9')).status).toBe(303)

    // Retry-After is honest: after that many seconds one more attempt is allowed.
    clock.t += retry * 1000
    expect((await post('203.0.113.7')).status).toBe(303)
    expect((await post('203.0.113.7')).status).toBe(429)

    // A minute later the bucket is full again: 20 more pass.
    clock.t += 60_000
    for (let i = 0; i < 20; i++) expect((await post('203.0.113.7')).status).toBe(303)
    expect((await post('203.0.113.7')).status).toBe(429)
  }, 120_000)
})

describe('HERALD_LOGIN_RATE_PER_MINUTE', () => {
  test('default 20; validated', () => {
    expect(loadConfig({}, {}).loginRatePerMinute).toBe(20)
    expect(loadConfig({}, { HERALD_LOGIN_RATE_PER_MINUTE: '5' }).loginRatePerMinute).toBe(5)
    expect(() => loadConfig({}, { HERALD_LOGIN_RATE_PER_MINUTE: '0' })).toThrow(
      'HERALD_LOGIN_RATE_PER_MINUTE',
    )
    expect(() => loadConfig({}, { HERALD_LOGIN_RATE_PER_MINUTE: 'many' })).toThrow(
      'HERALD_LOGIN_RATE_PER_MINUTE',
    )
  })
})
