import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../../helpers/app'
import { browser, makeUser, PORTAL_ENV, signIn, submitLogin } from './portal-helpers'

// /admin/account: time zone (dates across the portal) and password change.

const t = await createTestApp({ env: PORTAL_ENV })

describe('/admin/account', () => {
  test('the time zone changes how dates are shown', async () => {
    const b = await signIn(t)
    await b.post('/admin/api-keys', { name: 'dated', scopes: 'contacts:read' })
    const utc = (await b.get('/admin/api-keys')).text
    expect(utc).toMatch(/\d{2}:\d{2} UTC/)
    const saved = await b.post('/admin/account', { timezone: 'Asia/Tokyo' })
    expect(saved.status).toBe(303)
    const flash = await b.get('/admin/account')
    expect(flash.text).toContain('Dates now show in Asia/Tokyo.')
    expect(flash.text).toMatch(/<option value="Asia\/Tokyo" selected>/)
    expect((await b.get('/admin/api-keys')).text).toMatch(/\d{2}:\d{2} GMT\+9/)
  })

  test('an unknown time zone → 422 with the message next to the field', async () => {
    const b = await signIn(t)
    const res = await b.post('/admin/account', { timezone: 'Mars/Olympus' })
    expect(res.status).toBe(422)
    expect(res.text).toMatch(/id="timezone-error" class="field-error">must be an IANA time zone/)
  })

  test('password change: wrong current → 422; success keeps this browser signed in and ends other sessions', async () => {
    const user = await makeUser(t, { role: 'viewer' })
    const here = await signIn(t, user)
    const elsewhere = await signIn(t, user)
    const wrong = await here.post('/admin/account/password', {
      current_password: 'not-my-password',
      new_password: 'a-brand-new-password',
    })
    expect(wrong.status).toBe(422)
    expect(wrong.text).toMatch(/id="current_password-error" class="field-error">is not your current password/)
    const short = await here.post('/admin/account/password', {
      current_password: user.password,
      new_password: 'short',
    })
    expect(short.status).toBe(422)
    expect(short.text).toContain('id="new_password-error"')

    const ok = await here.post('/admin/account/password', {
      current_password: user.password,
      new_password: 'a-brand-new-password',
    })
    expect(ok.status).toBe(303)
    expect((await here.get('/admin/account')).status).toBe(200)
    expect((await elsewhere.get('/admin/account')).status).toBe(303)
    expect((await submitLogin(browser(t), user.email, user.password)).status).toBe(200)
    expect((await submitLogin(browser(t), user.email, 'a-brand-new-password')).status).toBe(303)
  }, 60_000)
})
