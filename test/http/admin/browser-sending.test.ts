// Content and sending in real Chromium: a template written on its page (with the preview for a
// contact in a sandboxed iframe, and the live preview of unsaved text while typing), a capture campaign created and launched from the portal
// (the confirmation shows the audience size), its progress bar polled until `sent` while the real
// send worker runs, then a captured message opened with its HTML in <iframe sandbox srcdoc>.
// axe and the page-problem recorder (console errors, CSP violations, dialogs) run on each page.
import { describe, expect, test } from 'bun:test'
import type { Locator } from 'playwright-core'
import { startSending } from '../../../src/queue/start'
import { sendDeps } from '../../../src/sending'
import { adminApi } from '../../helpers/admin-api'
import {
  expectCleanPage,
  expectNoSeriousViolations,
  follow,
  screenshot,
  usePortal,
  visit,
} from '../../helpers/browser'
import { expectNoInjectedMarkup } from '../../helpers/portal-seed'

// No workers at first: the campaign is seen sending (its bar polling) before the worker starts.
const portal = await usePortal()

/**
 * The text of an element inside the preview's sandboxed iframe once it reads `want`. The
 * debounced preview may swap the iframe again while it is read (a detached frame rejects the
 * read), so the read is retried until it sees `want` or the time is up; the last text is returned.
 */
async function frameTextOnceItIs(locator: Locator, want: string, timeoutMs = 10_000): Promise<string> {
  const until = Date.now() + timeoutMs
  let last = '(not read)'
  while (Date.now() < until) {
    try {
      last = await locator.innerText({ timeout: 1_000 })
      if (last === want) return last
    } catch (err) {
      last = `(read failed: ${(err as Error).message.split('\n')[0]})`
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return last
}
const herald = portal.herald
const api = await adminApi(herald)

describe('content and sending (browser)', () => {
  test('write a template, create and launch a capture campaign, watch it reach sent, read a captured message', async () => {
    const list = await api('POST', '/api/v1/lists', { name: 'Browser buyers' })
    for (const [i, name] of ['Ann', 'Bob', 'Cy'].entries())
      await api('POST', '/api/v1/contacts', {
        email: `buyer${i}@browser.test`,
        first_name: name,
        list_ids: [list.id],
      })
    const page = await portal.pageAs('owner')

    // A template through its page, previewed for a chosen contact.
    await visit(page, '/admin/templates/new')
    await page.getByLabel('Name', { exact: true }).fill('Browser promo')
    await page.getByLabel('Subject (email)').fill('A deal for {{ contact.first_name }}')
    await page
      .getByLabel('HTML body')
      .fill('<h2>Hello {{ contact.first_name }}</h2><p style="color:red">{{ contact.custom.plan }}</p>')
    await follow(page, page.getByRole('button', { name: 'Create template' }))
    expect(new URL(page.url()).pathname).toMatch(/^\/admin\/templates\/[0-9a-f-]{36}$/)
    const preview = page.waitForResponse((r) => r.url().endsWith('/draft-preview'))
    await page.getByLabel('Preview for').selectOption({ label: 'buyer0@browser.test' })
    await preview
    await page.waitForFunction(() =>
      document.querySelector('#template-preview')?.textContent?.includes('contact.custom.plan'),
    )
    const previewFrame = page.frameLocator('#template-preview iframe')
    expect(await frameTextOnceItIs(previewFrame.locator('h2'), 'Hello Ann')).toBe('Hello Ann')
    expect(await page.locator('#template-preview iframe').getAttribute('sandbox')).toBe('')
    await expectNoSeriousViolations(page)
    await screenshot(page, '/admin/templates/preview')

    // Typing previews the UNSAVED text (templates.render-draft) for the chosen contact, 400 ms
    // after the last change; nothing is saved (the campaign below sends the saved version).
    const html = page.getByLabel('HTML body')
    await html.fill('<h2>Welcome back {{ contact.first_name }}</h2>')
    await page.waitForFunction(() =>
      document
        .querySelector('#template-preview iframe')
        ?.getAttribute('srcdoc')
        ?.includes('Welcome back Ann'),
    )
    expect(await frameTextOnceItIs(previewFrame.locator('h2'), 'Welcome back Ann')).toBe('Welcome back Ann')
    await expect(page.locator('#template-preview').innerText()).resolves.toContain(
      'Every variable has a value.',
    )
    await html.press('End')
    await html.pressSequentially('<p>{{ contact.custom.tier }}</p>')
    await page.waitForFunction(() =>
      document.querySelector('#template-preview')?.textContent?.includes('contact.custom.tier'),
    )
    expect(await page.locator('#body_html-live').innerText()).toBe('')
    // Another contact previews the text as typed, not the saved version.
    await page.getByLabel('Preview for').selectOption({ label: 'buyer1@browser.test' })
    await page.waitForFunction(() =>
      document
        .querySelector('#template-preview iframe')
        ?.getAttribute('srcdoc')
        ?.includes('Welcome back Bob'),
    )
    await expectNoSeriousViolations(page)
    await screenshot(page, '/admin/templates/draft-preview')
    await expectCleanPage(page)

    // The campaign through the new-campaign form.
    await visit(page, '/admin/campaigns/new')
    await page.getByLabel('Name', { exact: true }).fill('Browser launch')
    await page.getByLabel('Send to').selectOption({ label: 'Browser buyers (3)' })
    await page.getByLabel('Template').selectOption({ label: 'Browser promo (email)' })
    await expectNoSeriousViolations(page)
    await follow(page, page.getByRole('button', { name: 'Create campaign' }))
    const campaignPath = new URL(page.url()).pathname
    expect(campaignPath).toMatch(/^\/admin\/campaigns\/[0-9a-f-]{36}$/)

    // Its edit form shows the choices made (and passes axe).
    await follow(page, page.getByRole('button', { name: 'Edit' }))
    expect(await page.getByLabel('Send to').inputValue()).toBe(`list:${list.id}`)
    await expectNoSeriousViolations(page)
    await follow(page, page.getByRole('button', { name: 'Save' }))
    expect(new URL(page.url()).pathname).toBe(campaignPath)

    // Launch behind its confirmation, which shows the audience size.
    await follow(page, page.getByRole('button', { name: 'Launch…' }))
    expect(await page.locator('#audience-size').innerText()).toBe('3')
    await expectNoSeriousViolations(page)
    await screenshot(page, '/admin/campaigns/launch')
    await follow(page, page.getByRole('button', { name: 'Launch now' }))
    expect(new URL(page.url()).pathname).toBe(campaignPath)
    const progress = page.locator('#campaign-live')
    expect(await progress.getAttribute('data-status')).toBe('sending')
    expect(await progress.getAttribute('hx-trigger')).toBe('every 2s')

    // The real send worker (capture provider) runs; the polled bar reaches sent.
    const worker = startSending(herald.ctx, sendDeps)
    try {
      await page.waitForSelector('#campaign-live[data-status="sent"]', { timeout: 30_000 })
    } finally {
      await worker.stop()
    }
    expect(await page.locator('#campaign-bar').getAttribute('value')).toBe('100')
    expect(await page.locator('#campaign-live').getAttribute('hx-trigger')).toBeNull()
    await expectNoSeriousViolations(page)
    await screenshot(page, '/admin/campaigns/sent')
    await expectCleanPage(page)

    // Its messages, and one of them with its HTML in the sandbox.
    await follow(page, page.getByRole('link', { name: 'Its messages' }))
    await follow(page, page.getByRole('link', { name: 'buyer1@browser.test' }))
    expect(await page.locator('h1').innerText()).toBe('A deal for Bob')
    const frame = page.locator('iframe.email-frame')
    const sandbox = await frame.getAttribute('sandbox')
    expect(sandbox).toBe('')
    await expect(page.frameLocator('iframe.email-frame').locator('h2').innerText()).resolves.toBe('Hello Bob')
    expect(await page.locator('#source-part').innerText()).toContain('A deal for Bob')
    await expectNoInjectedMarkup(page)
    await expectNoSeriousViolations(page)
    await screenshot(page, '/admin/messages/captured')
    await expectCleanPage(page)

    // The dashboard charts the sends of the last 30 days.
    await visit(page, '/admin')
    expect(await page.locator('#activity-title').textContent()).toContain('last 30 days')
    expect(await page.locator('.chart-legend').innerText()).toContain('Sends (3)')
    await expectNoSeriousViolations(page)
    await screenshot(page, '/admin/dashboard-after-send')
    await expectCleanPage(page)
  }, 90_000) // a whole campaign through a real browser: 12–16 s alone, more under a loaded CI
})
