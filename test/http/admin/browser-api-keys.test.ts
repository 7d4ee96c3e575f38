// API keys in the portal (spec: "in the portal under Admin, API Keys ({portal_url}/admin/api-keys)"),
// in real Chromium: create a key with scope checkboxes, read it the one time it is shown, use it
// over REST, see only its prefix afterwards, revoke it, and REST refuses it.
import { describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import {
  alertText,
  expectCleanPage,
  expectNoSeriousViolations,
  screenshot,
  usePortal,
  visit,
} from '../../helpers/browser'

const portal = usePortal()
const KEY = /hrld_[A-Za-z0-9]{32}/

const rest = (key: string) =>
  fetch(`${portal.url}/api/v1/contacts?limit=1`, { headers: { authorization: `Bearer ${key}` } }).then(
    (r) => r.status,
  )

/** Everything a user can read or copy on the page: its text and the values of its fields. */
async function readable(page: Page): Promise<string> {
  return page.evaluate(
    () =>
      document.body.innerText +
      '\n' +
      Array.from(document.querySelectorAll('input, textarea'))
        .map((e) => (e as HTMLInputElement).value)
        .join('\n'),
  )
}

describe('API keys page (browser)', () => {
  test('create with scope checkboxes → key shown once → REST 200 → listed by prefix only → revoke → REST 401', async () => {
    const page = await portal.pageAs('owner')
    await visit(page, '/admin/api-keys')
    await expectNoSeriousViolations(page)

    const form = page.locator('form:has(input[name="scopes"])')
    await form.getByLabel(/^name/i).fill('Browser test key')
    await form.locator('input[name="scopes"][value="contacts:read"]').check()
    await Promise.all([page.waitForNavigation(), form.locator('button[type="submit"]').first().click()])

    const shown = (await readable(page)).match(KEY)
    if (!shown)
      throw new Error(
        `${page.url()}: no key shown after creating one\n${(await readable(page)).slice(0, 2000)}`,
      )
    const key = shown[0]
    await expectNoSeriousViolations(page)
    await screenshot(page, '/admin/api-keys/created')
    await expectCleanPage(page)

    expect(await rest(key)).toBe(200)

    // Shown once: a reload lists the key by its 12-character prefix, never in full.
    await visit(page, '/admin/api-keys')
    const later = await readable(page)
    expect(later).not.toContain(key)
    expect(later).toContain(key.slice(0, 12))
    expect(await page.content()).not.toContain(key)

    // Revoke from the key's row (a confirmation step, dialog or page, is accepted).
    const row = page.locator('tr', { hasText: key.slice(0, 12) })
    await Promise.all([page.waitForNavigation(), row.getByRole('button', { name: /revoke/i }).click()])
    const confirm = page.getByRole('button', { name: /revoke/i })
    if (new URL(page.url()).pathname !== '/admin/api-keys' && (await confirm.count()) > 0)
      await Promise.all([page.waitForNavigation(), confirm.first().click()])
    expect(new URL(page.url()).pathname).toBe('/admin/api-keys')
    expect(await alertText(page)).toMatch(/revoked/i)
    await expectCleanPage(page)

    expect(await rest(key)).toBe(401)
  })
})
