// Signing in and out of the portal in real Chromium (DESIGN §9a): the redirect to the login page
// with `next`, a wrong password, the session cookie, logout, CSRF refusal, and the lockout after
// 10 failures — driven by the injected clock, never by waiting.
import { describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { alertText, expectCleanPage, login, loginOk, usePortal, visit } from '../../helpers/browser'

const clock = { t: Date.parse('2026-11-23T10:00:00.000Z'), now: () => clock.t }
const MINUTE = 60_000
const portal = await usePortal({ clock })

const path = (page: Page) => {
  const u = new URL(page.url())
  return u.pathname + u.search
}

describe('portal sign-in (browser)', () => {
  test('without a session a page answers 303 to /admin/login?next=<path>; signing in goes back there', async () => {
    const res = await fetch(`${portal.url}/admin/api-keys?limit=5`, { redirect: 'manual' })
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe('/admin/login?next=/admin/api-keys%3Flimit%3D5')

    const user = await portal.user('owner')
    const page = await (await portal.anonymous()).newPage()
    await visit(page, '/admin/api-keys?limit=5')
    expect(path(page)).toBe('/admin/login?next=/admin/api-keys%3Flimit%3D5')
    await expectCleanPage(page)
    await loginOk(page, user.email, user.password)
    expect(path(page)).toBe('/admin/api-keys?limit=5')
    await expectCleanPage(page)
  })

  test('next never leads off the portal (open redirect)', async () => {
    const user = await portal.user('admin')
    for (const next of [
      'https://evil.example/',
      '//evil.example/admin',
      '/\\evil.example',
      'javascript:alert(1)',
    ]) {
      const page = await (await portal.anonymous()).newPage()
      await visit(page, `/admin/login?next=${encodeURIComponent(next)}`)
      await loginOk(page, user.email, user.password)
      const u = new URL(page.url())
      expect(`${next} → ${u.origin}`).toBe(`${next} → ${portal.url}`)
      expect(u.pathname.startsWith('/admin')).toBe(true)
      await expectCleanPage(page)
    }
  })

  test('a wrong password re-renders the form (200) with a role="alert" message and no session', async () => {
    const user = await portal.user('member')
    const context = await portal.anonymous()
    const page = await context.newPage()
    await visit(page, '/admin/login')
    const answer = page.waitForResponse((r) => r.request().method() === 'POST')
    await login(page, user.email, 'not the password at all')
    expect((await answer).status()).toBe(200)
    expect(new URL(page.url()).pathname).toBe('/admin/login')
    expect(await alertText(page)).not.toBe('')
    expect(await page.locator('[role="alert"]').first().isVisible()).toBe(true)
    expect((await context.cookies()).find((c) => c.name === 'herald_session')).toBeUndefined()
    // The email is kept in the form, the password is not.
    expect(await page.inputValue('input[name="email"]')).toBe(user.email)
    expect(await page.inputValue('input[name="password"]')).toBe('')
    await expectCleanPage(page)
  })

  test('login sets an HttpOnly SameSite=Lax session cookie; logout (POST with _csrf) ends the session', async () => {
    const user = await portal.user('viewer')
    const context = await portal.anonymous()
    const page = await context.newPage()
    await visit(page, '/admin/login')
    await loginOk(page, user.email, user.password)
    const cookie = (await context.cookies()).find((c) => c.name === 'herald_session')
    expect(cookie).toBeDefined()
    expect(cookie!.httpOnly).toBe(true)
    expect(cookie!.sameSite).toBe('Lax')
    expect(cookie!.secure).toBe(false) // the public URL is http
    expect(await page.evaluate('document.cookie')).not.toContain('herald_session')

    const logout = page.locator('form[action="/admin/logout"]')
    expect(await logout.locator('input[name="_csrf"]').count()).toBe(1)
    await Promise.all([
      page.waitForNavigation(),
      logout.locator('button, input[type="submit"]').first().click(),
    ])
    expect(new URL(page.url()).pathname).toBe('/admin/login')
    await expectCleanPage(page)

    // The old cookie no longer opens a page, even replayed in a fresh context.
    const replay = await portal.anonymous()
    await replay.addCookies([{ ...cookie!, sameSite: 'Lax' }])
    const again = await replay.newPage()
    await visit(again, '/admin/api-keys')
    expect(new URL(again.url()).pathname).toBe('/admin/login')
  })

  test('CSRF: an unsafe request without the session token (or with a wrong one) gets the 403 page', async () => {
    const page = await portal.pageAs('owner')
    await visit(page, '/admin/api-keys')
    const token = await page.getAttribute('meta[name="csrf-token"]', 'content')
    expect(token).toBeTruthy()

    // A plain form POST with its hidden _csrf removed.
    const form = page.locator('form[action="/admin/logout"]')
    await form.locator('input[name="_csrf"]').evaluate((input) => input.remove())
    const [refused] = await Promise.all([
      page.waitForNavigation(),
      form.locator('button, input[type="submit"]').first().click(),
    ])
    expect(`${refused!.url()} ${refused!.status()}`).toBe(`${portal.url}/admin/logout 403`)
    expect((await page.locator('body').innerText()).length).toBeGreaterThan(0)
    await expectCleanPage(page, { allowFailedResponses: true })

    // fetch from the page (as htmx would) without the header, then with a wrong one.
    const statuses = await page.evaluate(async () => {
      const post = (headers: Record<string, string>) =>
        fetch('/admin/logout', { method: 'POST', headers, redirect: 'manual' }).then((r) => r.status)
      return [await post({}), await post({ 'X-CSRF-Token': 'not-the-token' })]
    })
    expect(statuses).toEqual([403, 403])

    // The session survived every refused attempt.
    await visit(page, '/admin/api-keys')
    expect(new URL(page.url()).pathname).toBe('/admin/api-keys')
    await expectCleanPage(page, { allowFailedResponses: true })
    await page.close()
  })

  test('the X-CSRF-Token header from <meta name="csrf-token"> is accepted (what htmx sends)', async () => {
    const user = await portal.user('viewer')
    const context = await portal.anonymous()
    const page = await context.newPage()
    await visit(page, '/admin/login')
    await loginOk(page, user.email, user.password)
    const status = await page.evaluate(async () => {
      const token = document.querySelector('meta[name="csrf-token"]')!.getAttribute('content')!
      const r = await fetch('/admin/logout', {
        method: 'POST',
        headers: { 'X-CSRF-Token': token },
        redirect: 'manual',
      })
      return r.type === 'opaqueredirect' ? 303 : r.status
    })
    expect(status).not.toBe(403)
    await visit(page, '/admin/api-keys')
    expect(new URL(page.url()).pathname).toBe('/admin/login')
  })

  // Last in the file: it locks 127.0.0.1 too (every attempt here comes from it), so it ends by
  // letting the clock pass the lock.
  test('lockout: after 10 failures in 15 minutes even the right password is refused, until 15 minutes pass', async () => {
    clock.t += 16 * MINUTE // earlier tests' failures from this IP are out of the window
    const user = await portal.user('owner')
    const page = await (await portal.anonymous()).newPage()
    await visit(page, '/admin/login')
    for (let i = 1; i <= 10; i++) {
      await login(page, user.email, `wrong password ${i}`)
      expect(`attempt ${i}: ${new URL(page.url()).pathname}`).toBe(`attempt ${i}: /admin/login`)
      expect(await alertText(page)).not.toBe('')
    }
    await login(page, user.email, user.password)
    expect(new URL(page.url()).pathname).toBe('/admin/login')
    expect(await alertText(page)).not.toBe('')

    clock.t += 14 * MINUTE
    await login(page, user.email, user.password)
    expect(new URL(page.url()).pathname).toBe('/admin/login')

    clock.t += 1 * MINUTE + 1
    await loginOk(page, user.email, user.password)
    await expectCleanPage(page)
  })
})
