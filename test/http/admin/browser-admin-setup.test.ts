// Sending setup in real Chromium: a webhook to a local receiver created on its page, its secret
// revealed behind the confirmation, a test event sent and seen in the delivery log — and the
// request the receiver got verified with the standardwebhooks library and the revealed secret;
// a domain added and verified against a real DNS server on loopback with one record wrong, whose
// reason (found vs expected) shows; the XSS probes rendered inert on these pages. axe and the
// page-problem recorder (console errors, CSP violations, dialogs) run on each page.
import { afterAll, describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import {
  expectCleanPage,
  expectNoSeriousViolations,
  follow,
  screenshot,
  usePortal,
  visit,
} from '../../helpers/browser'
import { startDnsServer } from '../../helpers/dns-server'
import { expectNoInjectedMarkup, seedHostileData, XSS } from '../../helpers/portal-seed'
import { startReceiver } from '../../helpers/receiver'

const dns = await startDnsServer()
const receiver = startReceiver()
afterAll(() => receiver.close())
const portal = await usePortal({
  workers: true,
  env: {
    HERALD_WEBHOOK_ALLOW_PRIVATE: '1',
    HERALD_DNS_SERVERS: dns.address,
    HERALD_SPF_INCLUDE: 'spf.herald.test',
  },
})

describe('sending setup (browser)', () => {
  test('webhook: create, reveal the secret, send a test event, see it in the log, verify the request', async () => {
    const page = await portal.pageAs('owner')
    await visit(page, '/admin/webhooks/new')
    await page.getByLabel('Endpoint URL').fill(receiver.url)
    await page.getByLabel('email.opened').check()
    await page.getByLabel('email.delivered').check()
    await follow(page, page.getByRole('button', { name: 'Create webhook' }))
    const shownOnce = await page.locator('#secret').inputValue()
    expect(shownOnce).toMatch(/^whsec_/)
    await expectNoSeriousViolations(page)
    await expectCleanPage(page)

    await visit(page, '/admin/webhooks')
    await follow(page, page.getByRole('link', { name: receiver.url, exact: true }))
    expect(await page.content()).not.toContain(shownOnce)
    await follow(page, page.getByRole('button', { name: 'Reveal secret' }))
    await expectNoSeriousViolations(page)
    await follow(page, page.getByRole('button', { name: 'Reveal secret' }))
    const secret = await page.locator('#secret').inputValue()
    expect(secret).toBe(shownOnce)

    await follow(page, page.getByRole('link', { name: 'Back to the webhook' }))
    await page.getByLabel('Event').selectOption('email.opened')
    const before = receiver.received.length
    await follow(page, page.getByRole('button', { name: 'Send test' }))
    expect(await page.locator('[role="status"]').innerText()).toMatch(
      /Test event delivered: HTTP 204 in \d+ ms/,
    )
    const row = page.locator('tr.delivery').first()
    expect(await row.innerText()).toContain('email.opened (test)')
    expect(await row.innerText()).toMatch(/HTTP 204 in \d+ ms/)
    await expectNoSeriousViolations(page)
    await expectCleanPage(page)
    await screenshot(page, 'webhook-delivery-log')

    expect(receiver.received.length).toBe(before + 1)
    const got = receiver.received.at(-1)!
    const payload = new Webhook(secret).verify(got.body, got.headers) as {
      type: string
      data: { test: boolean }
    }
    expect(payload.type).toBe('email.opened')
    expect(payload.data.test).toBe(true)
    // A different secret does not verify it: the check above can fail.
    expect(() => new Webhook(`whsec_${btoa('x'.repeat(32))}`).verify(got.body, got.headers)).toThrow()
  })

  test('domain: records to copy, verify against a real DNS server, the wrong record says why', async () => {
    const page = await portal.pageAs('owner')
    await visit(page, '/admin/domains/new')
    await page.getByLabel('Domain').fill('mail.browser.test')
    await follow(page, page.getByRole('button', { name: 'Add domain' }))
    expect(new URL(page.url()).pathname).toMatch(/^\/admin\/domains\/[0-9a-f-]{36}$/)
    await expect(page.locator('[data-copy="#rec-dkim-value"]').count()).resolves.toBe(1)
    const value = (p: string) => page.locator(`#rec-${p}-value`).inputValue()
    const name = (p: string) => page.locator(`#rec-${p}-name`).inputValue()
    const dkim = await value('dkim')
    expect(dkim).toMatch(/^v=DKIM1; k=rsa; p=/)
    // The zone-file form: the same value in strings of at most 255 characters.
    const parts = [
      ...((await page.locator('#rec-dkim-parts').textContent()) ?? '').matchAll(/"([^"]*)"/g),
    ].map((m) => m[1]!)
    expect(parts.join('')).toBe(dkim)
    expect(parts.every((p) => p.length <= 255)).toBe(true)
    await expectNoSeriousViolations(page)

    dns.zone.set(await name('dkim'), [parts])
    dns.zone.set(await name('spf'), [[await value('spf')]])
    dns.zone.set(await name('dmarc'), [['v=DMARC1; p=bogus']])
    await follow(page, page.getByRole('button', { name: 'Verify DNS now' }))
    expect(dns.queries.some((q) => q.startsWith('TXT') && q.includes('mail.browser.test'))).toBe(true)
    expect(await page.locator('[role="status"]').innerText()).toContain(
      'mail.browser.test is verified (still to fix: DMARC)',
    )
    await expect(page.locator('[data-check]').count()).resolves.toBe(1)
    const reason = await page.locator('[data-check="dmarc"]').innerText()
    expect(reason).toContain('invalid policy p=bogus')
    expect(reason).toContain('Found: v=DMARC1; p=bogus')
    expect(reason).toContain(`Expected: ${await value('dmarc')}`)
    await expectNoSeriousViolations(page)
    await expectCleanPage(page)
    await screenshot(page, 'domain-verify-reason')
  })

  test('XSS probes render inert on the sending-setup and administration pages', async () => {
    await seedHostileData(portal.herald)
    const r = await portal.herald.call('POST', '/api/v1/clients', {
      body: { name: XSS.company, industry: XSS.attribute },
    })
    expect(r.status).toBe(200)
    const page = await portal.pageAs('owner')
    for (const path of [
      '/admin/senders',
      '/admin/domains',
      '/admin/webhooks',
      '/admin/jobs',
      '/admin/clients',
      '/admin/users',
      '/admin/settings',
    ]) {
      await visit(page, path)
      await expectNoInjectedMarkup(page)
      await expectNoSeriousViolations(page)
      await expectCleanPage(page)
    }
    await visit(page, '/admin/senders')
    expect(await page.locator('main').innerText()).toContain(XSS.name)
    await visit(page, '/admin/clients')
    expect(await page.locator('main').innerText()).toContain(XSS.company)
    await visit(page, `/admin/clients/${r.body.data.id}/status`)
    await expectNoInjectedMarkup(page)
  })
})
