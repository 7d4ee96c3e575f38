// Audience pages in real Chromium: a CSV import whose progress bar (an htmx fragment polled every
// second) reaches done; a segment built in the rule builder whose estimated size changes while
// editing (htmx posts of the unsaved rules); the XSS probe contact rendered as inert text on the
// contacts list and its page. axe and the page-problem recorder run on each page.
import { describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { createImportWorker } from '../../../src/services/imports/runner'
import { adminApi } from '../../helpers/admin-api'
import {
  expectCleanPage,
  expectNoSeriousViolations,
  follow,
  screenshot,
  settle,
  usePortal,
  visit,
} from '../../helpers/browser'
import { expectNoInjectedMarkup, XSS } from '../../helpers/portal-seed'

const portal = await usePortal()
const herald = portal.herald
const api = await adminApi(herald)

/** Waits until the live estimate shows `size` (the htmx post of the unsaved rules answered). */
async function sizeBecomes(page: Page, size: number) {
  try {
    await page.waitForFunction(
      (n) => document.querySelector('#estimated-size')?.getAttribute('data-size') === String(n),
      size,
      { timeout: 10_000 },
    )
  } catch {
    throw new Error(`estimate never showed ${size}: "${await page.locator('#estimate').innerText()}"`)
  }
}

describe('audience pages (browser)', () => {
  test('import a CSV and watch the progress bar reach done', async () => {
    const page = await portal.pageAs('owner')
    await visit(page, '/admin/imports/new')
    await expectNoSeriousViolations(page)
    const rows = ['email,first_name,company,plan']
    for (let i = 0; i < 3000; i++)
      rows.push(`browser${i}@import.test,Row ${i},Acme,${i % 2 ? 'pro' : 'free'}`)
    rows.push('not-an-address,Bad,,')
    await page.locator('input[type="file"]').setInputFiles({
      name: 'contacts.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`${rows.join('\n')}\n`),
    })
    // No worker runs yet: the import page shows the job queued, with its bar polling.
    await follow(page, page.getByRole('button', { name: /upload and import/i }))
    expect(new URL(page.url()).pathname).toMatch(/^\/admin\/imports\/[0-9a-f-]{36}$/)
    const section = page.locator('#import-progress')
    expect(await section.getAttribute('data-status')).toBe('queued')
    expect(await section.getAttribute('hx-trigger')).toBe('every 1s')
    await expectNoSeriousViolations(page)

    const worker = createImportWorker(herald.ctx).start()
    try {
      await page.waitForSelector('#import-progress[data-status="completed"]', { timeout: 20_000 })
    } finally {
      await worker.stop()
    }
    expect(await page.locator('#import-bar').getAttribute('value')).toBe('100')
    const status = await page.getByRole('status').last().textContent()
    expect(status).toContain('3,000 inserted')
    expect(await page.locator('#import-progress').textContent()).toContain('not-an-address')
    // Done: the fragment no longer polls.
    expect(await page.locator('#import-progress').getAttribute('hx-trigger')).toBeNull()
    await screenshot(page, '/admin/imports/done')
    await expectCleanPage(page)
  })

  test('build a segment and see its size change while editing', async () => {
    const page = await portal.pageAs('owner')
    await visit(page, '/admin/segments/new')
    await expectNoSeriousViolations(page)
    await page.getByLabel('Name', { exact: true }).fill('Pro plan importers')

    // Rule 1: email starts with "browser1" (browser1, browser10…, browser1999: 1,111 of 3,000).
    await page.locator('#g0-r0-operator').selectOption('starts_with')
    await page.locator('#g0-r0-value').fill('browser1')
    await sizeBecomes(page, 1111)
    // Narrower: browser12…
    await page.locator('#g0-r0-value').fill('browser12')
    await sizeBecomes(page, 111)

    // Add a rule (a submit that re-renders the builder, swapped by htmx): a custom field.
    await follow(page, page.getByRole('button', { name: /add a rule/i }))
    await page.locator('#g0-r1-field').selectOption('custom')
    await settle(page) // the field change re-renders the rule with a key input
    await page.locator('#g0-r1-key').fill('plan')
    await page.locator('#g0-r1-operator').selectOption('eq')
    await page.locator('#g0-r1-value').fill('pro')
    // Odd rows (plan pro) among browser12, browser120…129, browser1200…1299: 0 + 5 + 50 = 55.
    await sizeBecomes(page, 55)
    await expectNoSeriousViolations(page)

    await follow(page, page.getByRole('button', { name: /save segment/i }))
    expect(new URL(page.url()).pathname).toMatch(/^\/admin\/segments\/[0-9a-f-]{36}$/)
    expect(await page.locator('main').textContent()).toContain('about 55 contacts match')
    await expectNoSeriousViolations(page)
    await screenshot(page, '/admin/segments/saved')
    await expectCleanPage(page)
  })

  test('the XSS probe contact renders inert on the contacts list and its page', async () => {
    // The probes of portal-seed.ts, made through REST (no campaign: this file runs no sender).
    const list = await api('POST', '/api/v1/lists', { name: XSS.name, description: XSS.company })
    const contact = await api('POST', '/api/v1/contacts', {
      email: 'xss.probe@example.com',
      first_name: XSS.name,
      last_name: XSS.attribute,
      company: XSS.company,
      custom_fields: { [XSS.attribute]: XSS.company, note: XSS.template },
      list_ids: [list.id],
    })
    const segment = await api('POST', '/api/v1/segments', {
      name: XSS.company,
      rule_groups: [
        { match: 'all', rules: [{ field: 'company', operator: 'contains', value: XSS.company }] },
      ],
    })
    const seeded = { contactId: contact.id, listId: list.id, segmentId: segment.id }
    const page = await portal.pageAs('owner')
    for (const path of [
      `/admin/contacts?q=${encodeURIComponent('xss.probe')}`,
      `/admin/contacts/${seeded.contactId}`,
      `/admin/contacts/${seeded.contactId}/edit`,
      `/admin/lists/${seeded.listId}`,
      `/admin/segments/${seeded.segmentId}`,
      `/admin/segments/${seeded.segmentId}/edit`,
    ]) {
      await visit(page, path)
      await expectNoInjectedMarkup(page)
      const text =
        (await page.locator('main').innerText()) +
        (await page.locator('main').evaluate((m) =>
          Array.from(m.querySelectorAll('input, textarea'))
            .map((e) => (e as HTMLInputElement).value)
            .join('\n'),
        ))
      expect(text).toContain(path.includes('/segments/') ? XSS.company : XSS.name)
      await expectNoSeriousViolations(page)
      await expectCleanPage(page)
    }
    await visit(page, '/admin/contacts')
    expect(await page.locator('main').innerText()).toContain(XSS.company)
    await expectNoInjectedMarkup(page)
    await screenshot(page, '/admin/contacts/xss')
    await expectCleanPage(page)
  })
})
