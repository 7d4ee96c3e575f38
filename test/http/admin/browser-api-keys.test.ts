// API keys in the portal (spec: "in the portal under Admin, API Keys ({portal_url}/admin/api-keys)"),
// in real Chromium with htmx on: create a key with scope checkboxes, read it the one time it is
// shown, use it over REST, see only its prefix afterwards, revoke it behind the confirmation, and
// REST refuses it. A form with a mistake shows the message in place.
import { describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import {
  expectCleanPage,
  expectNoSeriousViolations,
  follow,
  screenshot,
  usePortal,
  visit,
} from '../../helpers/browser'

const portal = await usePortal()
// hrld_ + 32 random bytes in base62 (43 characters).
const KEY = /hrld_[A-Za-z0-9]{43}(?![A-Za-z0-9])/

const rest = (key: string) =>
  fetch(`${portal.url}/api/v1/contacts?limit=1`, { headers: { authorization: `Bearer ${key}` } }).then(
    (r) => r.status,
  )

/** Everything a user can read or copy on the page: its text and the values of its fields. */
function readable(page: Page): Promise<string> {
  return page.evaluate(
    () =>
      `${document.body.innerText}\n${Array.from(document.querySelectorAll('input, textarea'))
        .map((e) => (e as HTMLInputElement).value)
        .join('\n')}`,
  )
}

const statusText = async (page: Page) => (await page.locator('[role="status"]').allTextContents()).join(' ')

describe('API keys page (browser)', () => {
  test('create with scope checkboxes → key shown once → REST 200 → listed by prefix only → revoke → REST 401', async () => {
    const page = await portal.pageAs('owner')
    await visit(page, '/admin/api-keys')
    expect(await page.evaluate('typeof window.htmx')).toBe('object') // links and forms are boosted
    await expectNoSeriousViolations(page)

    await follow(page, page.getByRole('button', { name: 'New API key' }).first()) // a link styled as a button
    expect(new URL(page.url()).pathname).toBe('/admin/api-keys/new')
    await expectNoSeriousViolations(page)
    await page.getByLabel('Name', { exact: true }).fill('Browser test key')
    await page.getByLabel('contacts:read', { exact: true }).check()
    const created = await follow(page, page.getByRole('button', { name: 'Create key' }))
    expect(created.status()).toBe(200)

    const shown = (await readable(page)).match(KEY)
    if (!shown)
      throw new Error(
        `${page.url()}: no key shown after creating one:\n${(await readable(page)).slice(0, 1500)}`,
      )
    const key = shown[0]
    await expectNoSeriousViolations(page)
    await screenshot(page, '/admin/api-keys/created')
    await expectCleanPage(page)

    expect(await rest(key)).toBe(200)

    // Shown once: the list names the key by its 12-character prefix, never in full.
    await visit(page, '/admin/api-keys')
    const row = page.locator('tbody tr', { hasText: 'Browser test key' })
    expect(await row.count()).toBe(1)
    expect(await row.innerText()).toContain(key.slice(0, 12))
    expect(await page.content()).not.toContain(key)

    // Revoke: the row's link opens the confirmation page, its button revokes.
    await follow(page, row.getByRole('link', { name: /revoke/i }))
    expect(new URL(page.url()).pathname).toMatch(/^\/admin\/api-keys\/[0-9a-f-]{36}\/revoke$/)
    await expectNoSeriousViolations(page)
    await screenshot(page, '/admin/api-keys/id/revoke')
    expect(await rest(key)).toBe(200) // nothing happens before the confirmation
    await follow(page, page.getByRole('button', { name: 'Revoke key' }))
    expect(new URL(page.url()).pathname).toBe('/admin/api-keys')
    expect(await statusText(page)).toContain(`Revoked the key “Browser test key” (${key.slice(0, 12)}…)`)
    expect(await page.locator('tbody tr', { hasText: 'Browser test key' }).innerText()).toContain('revoked')
    await expectCleanPage(page)

    expect(await rest(key)).toBe(401)
    await page.close()
  })

  test('a form with a mistake (no scope chosen) re-renders in place with the message, keeping what was typed', async () => {
    const page = await portal.pageAs('owner')
    await visit(page, '/admin/api-keys/new')
    await page.getByLabel('Name', { exact: true }).fill('Nothing chosen')
    const answer = await follow(page, page.getByRole('button', { name: 'Create key' }))
    expect(answer.status()).toBe(422)
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Nothing chosen')
    const message = await page.locator('#scopes-error, [role="alert"]').allInnerTexts()
    expect(message.join(' ')).not.toBe('')
    expect(await page.locator('main').innerText()).not.toMatch(KEY)
    await expectNoSeriousViolations(page)
    await expectCleanPage(page, { allowFailedResponses: true })
    await page.close()
  })

  test('without JavaScript: the same create → shown once → revoke works as plain POST-redirect-GET forms', async () => {
    const owner = await portal.user('owner')
    const context = await portal.contextFor(owner, { javaScriptEnabled: false })
    const page = await context.newPage()
    await visit(page, '/admin/api-keys')
    expect(await page.evaluate('typeof window.htmx')).toBe('undefined') // the page's scripts did not run
    await follow(page, page.getByRole('button', { name: 'New API key' }).first())
    await page.getByLabel('Name', { exact: true }).fill('No-JS key')
    await page.getByLabel('contacts:read', { exact: true }).check()
    expect((await follow(page, page.getByRole('button', { name: 'Create key' }))).status()).toBe(200)
    const key = (await page.locator('#new-key').inputValue()).trim()
    expect(key).toMatch(KEY)
    expect(await rest(key)).toBe(200)
    await visit(page, '/admin/api-keys')
    await follow(
      page,
      page.locator('tbody tr', { hasText: 'No-JS key' }).getByRole('link', { name: /revoke/i }),
    )
    await follow(page, page.getByRole('button', { name: 'Revoke key' }))
    expect(new URL(page.url()).pathname).toBe('/admin/api-keys')
    expect(await statusText(page)).toContain('Revoked the key “No-JS key”')
    expect(await rest(key)).toBe(401)
    await context.close()
  })
})
