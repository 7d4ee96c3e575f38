// Issue 12: open deliverability alerts as a banner in the portal's layout, on every page of the
// workspace they concern (through the alerts verb, so roles and workspaces decide), linking to
// /admin/deliverability; role="alert" only for a new critical one, else a labelled region.
import { describe, expect, test } from 'bun:test'
import type { RollupDeltas } from '../../../src/db/rollups'
import { checkSendingHealth } from '../../../src/services/deliverability/alerts'
import { createTestApp } from '../../helpers/app'
import { countEmail } from '../../helpers/campaign'
import { makeUser, PORTAL_ENV, signIn } from './portal-helpers'

// Real time: portal sessions are checked against it.
const HOUR = 3_600_000
const NOW = Date.now() - (Date.now() % HOUR)
const t = await createTestApp({ env: PORTAL_ENV })
const acme = t.defaultClientId
const globex = await t.client('Globex')
const initech = await t.client('Initech')
const hooli = await t.client('Hooli')

const add = (clientId: string, d: RollupDeltas) => countEmail(t, clientId, NOW - 2 * HOUR, d)

/** What the banner holds in a full page (it sits between the header and <main>); '' when empty. */
function bannerOf(html: string): string {
  const start = html.indexOf('<div id="alert-banner"')
  if (start < 0) throw new Error('no banner element in the layout')
  const inner = html.slice(html.indexOf('>', start) + 1, html.indexOf('<main', start))
  return inner.replace(/<\/div>\s*$/, '').trim()
}

describe('deliverability alert banner in the layout', async () => {
  // Acme: 3 % bounces over 1,000 sends → one open warning (bounce rate).
  await add(acme, { sent: 1000, delivered: 970, bounced: 30 })
  await checkSendingHealth(t.ctx, acme, NOW - HOUR * 2)
  // Initech: 0.5 % complaints → a critical alert (at the pause threshold), recorded just now.
  await add(initech, { sent: 1000, delivered: 1000, complained: 5 })
  await checkSendingHealth(t.ctx, initech, Date.now())
  // Hooli: as critical, but recorded two hours ago: no longer announced.
  await add(hooli, { sent: 1000, delivered: 1000, complained: 5 })
  await checkSendingHealth(t.ctx, hooli, Date.now() - 2 * HOUR)
  const hooliMember = await signIn(t, await makeUser(t, { role: 'member', clients: [hooli] }))
  const acmeMember = await signIn(t, await makeUser(t, { role: 'member', clients: [acme] }))
  const globexMember = await signIn(t, await makeUser(t, { role: 'member', clients: [globex] }))
  const initechMember = await signIn(t, await makeUser(t, { role: 'member', clients: [initech] }))

  test('a member of the client with an open alert sees it on /admin/contacts, linking to the deliverability page', async () => {
    const r = await acmeMember.get('/admin/contacts')
    expect(r.status).toBe(200)
    const banner = bannerOf(r.text)
    expect(banner).toContain('1 open deliverability alert<')
    expect(banner).toContain('Bounce rate 3.0 %')
    expect(banner).toContain('href="/admin/deliverability"')
    // A warning: a labelled region, not an interruption.
    expect(banner).toContain('role="region" aria-label="Deliverability alerts"')
    expect(banner).not.toContain('role="alert"')
    // Before <main>: not replaced by the page's content.
    expect(r.text.indexOf('id="alert-banner"')).toBeLessThan(r.text.indexOf('<main'))
  })

  test('another workspace does not see it', async () => {
    const r = await globexMember.get('/admin/contacts')
    expect(r.status).toBe(200)
    expect(r.text).toContain('id="alert-banner"')
    expect(bannerOf(r.text)).toBe('')
    expect(r.text).not.toContain('open deliverability alert')
  })

  test('a new critical alert is announced with role="alert"', async () => {
    const r = await initechMember.get('/admin/contacts')
    const banner = bannerOf(r.text)
    expect(banner).toContain('role="alert"')
    expect(banner).toContain('Complaint rate 0.50 %')
    expect(banner).toContain('flash-error')
  })

  test('a critical alert older than an hour: still shown as critical, in a plain region', async () => {
    const banner = bannerOf((await hooliMember.get('/admin/contacts')).text)
    expect(banner).toContain('Complaint rate 0.50 %')
    expect(banner).toContain('flash-error')
    expect(banner).toContain('role="region"')
    expect(banner).not.toContain('role="alert"')
  })

  test('"All workspaces": every client\'s open alerts, each named by its client', async () => {
    const owner = await signIn(t)
    expect((await owner.post('/admin/workspace', { workspace: '', next: '/admin/contacts' })).status).toBe(
      303,
    )
    const r = await owner.get('/admin/contacts')
    const banner = bannerOf(r.text)
    // Three open alerts, newest first, each with its client's name; a new critical one among them.
    expect(banner).toContain('3 open deliverability alerts')
    expect(banner).toContain('Initech: Complaint rate')
    expect(banner).toContain('Hooli: Complaint rate')
    expect(banner).toMatch(/: Bounce rate 3\.0 %/)
    expect(banner).toContain('role="alert"')
    expect(banner).not.toContain('Globex')
  })

  test('an htmx navigation updates the banner out of band', async () => {
    const r = await acmeMember.get('/admin/lists', { 'hx-request': 'true' })
    expect(r.status).toBe(200)
    expect(r.text).toContain('<div id="alert-banner" class="container" hx-swap-oob="true">')
    expect(r.text).toContain('Bounce rate 3.0 %')
  })

  test('the deliverability page lists the alerts itself: no second banner there', async () => {
    const r = await acmeMember.get('/admin/deliverability')
    expect(r.status).toBe(200)
    expect(bannerOf(r.text)).toBe('')
    expect(r.text).toContain('Bounce rate 3.0 %')
  })

  test('a resolved alert leaves the banner', async () => {
    // 20,000 clean sends later the bounce rate over the last 1,000 is 0.
    await countEmail(t, acme, NOW, { sent: 20000, delivered: 20000 })
    await checkSendingHealth(t.ctx, acme, Date.now())
    const r = await acmeMember.get('/admin/contacts')
    expect(bannerOf(r.text)).toBe('')
  })
})
