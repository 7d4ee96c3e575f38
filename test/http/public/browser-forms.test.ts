// Signup forms in real Chromium: a person fills the hosted page, another fills the embed code on
// a page served from another origin (a second Bun.serve on another port and host name). Each
// confirmation arrives in the capture mailbox through the real send worker; following its link
// confirms the person, and the next campaign to the list reaches both. The pages run no script
// and break no CSP rule (the page-problem recorder watches each one).
import { afterAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import type { Page } from 'playwright-core'
import { expectCleanPage, usePortal } from '../../helpers/browser'
import { tenant } from '../../helpers/campaign'
import { rowOf, rowsOf } from '../../helpers/raw-sql'
import { eventually } from '../../helpers/receiver'

const portal = await usePortal({ workers: true })
const t = portal.herald
const acme = await tenant(t, 'Acme Bakery')
const list = await acme.call('POST', '/api/v1/lists', { name: 'Bakery news' })
const form = await acme.call('POST', '/api/v1/forms', {
  name: 'Signup',
  list_ids: [list.id],
  fields: ['first_name'],
  consent_text: 'Yes, send me the bakery news.',
})
const { html: embed } = await acme.call('GET', `/api/v1/forms/${form.id}/embed`)
const site = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: () =>
    new Response(
      `<!doctype html><html lang="en"><head><title>Bakery</title></head><body><h1>Our bakery</h1>${embed}</body></html>`,
      {
        headers: { 'content-type': 'text/html; charset=utf-8' },
      },
    ),
})
afterAll(() => site.stop(true))
// Another host name and port than Herald's 127.0.0.1: a cross-origin page.
const siteUrl = `http://localhost:${site.port}/`

const contactOf = async (email: string) =>
  (await rowOf<{ id: string }>(t, sql`SELECT id FROM contacts WHERE email = ${email}`))?.id ?? ''

/** The confirmation link of the message the capture mailbox received for the address. */
async function confirmLink(email: string): Promise<string> {
  let href = ''
  await eventually(async () => {
    const row = await rowOf<{ id: string }>(
      t,
      sql`SELECT id FROM messages WHERE contact_id = ${await contactOf(email)} AND campaign_id IS NULL AND status = 'delivered'`,
    )
    expect(row).toBeTruthy()
    const message = await acme.call('GET', `/api/v1/messages/${row!.id}`)
    expect(message.subject).toBe('Please confirm your subscription')
    href = /href="([^"]+)"[^>]*>Confirm my subscription/.exec(message.body_html)?.[1] ?? ''
    expect(href).not.toBe('')
  }, 15_000)
  return href.replaceAll('&amp;', '&')
}

async function subscribe(page: Page, email: string, name: string) {
  await page.fill('input[name="email"]', email)
  await page.fill('input[name="first_name"]', name)
  await Promise.all([
    page.waitForURL(`${portal.url}/f/${form.id}/thanks`),
    page.click('button[type="submit"]'),
  ])
  expect(await page.textContent('h1')).toBe('Check your inbox')
}

const statusOn = async (email: string) =>
  (
    await rowOf<{ status: string }>(
      t,
      sql`SELECT status FROM list_members WHERE list_id = ${list.id} AND contact_id = ${await contactOf(email)}`,
    )
  )?.status

describe('signup forms (browser)', () => {
  test('hosted and embedded forms, the confirmation mail, its link, and the next campaign', async () => {
    const context = await portal.anonymous()
    const page = await context.newPage()

    const hosted = await page.goto(`${portal.url}/f/${form.id}`)
    expect(hosted!.status()).toBe(200)
    expect(await page.textContent('header')).toBe('Acme Bakery')
    expect(await page.locator('script').count()).toBe(0)
    expect(await page.isVisible('input[name="hp"]')).toBe(true) // in the page, but off-screen
    const box = await page.locator('input[name="hp"]').boundingBox()
    expect(box!.x + box!.width).toBeLessThan(0)
    await subscribe(page, 'hosted@example.com', 'Hana')
    await expectCleanPage(page)

    await page.goto(siteUrl)
    expect(await page.textContent('h1')).toBe('Our bakery')
    await subscribe(page, 'embedded@example.com', 'Emil')
    await expectCleanPage(page)

    expect(await statusOn('hosted@example.com')).toBe('unconfirmed')
    expect(await statusOn('embedded@example.com')).toBe('unconfirmed')
    for (const email of ['hosted@example.com', 'embedded@example.com']) {
      await page.goto(await confirmLink(email))
      expect(page.url()).toContain('/f/confirm/')
      expect(await page.textContent('h1')).toBe('Subscription confirmed')
      await expectCleanPage(page)
      expect(await statusOn(email)).toBe('confirmed')
    }

    const campaign = await acme.call('POST', '/api/v1/campaigns', {
      name: 'Fresh bread',
      list_id: list.id,
      subject: 'Fresh bread, {{ contact.first_name }}',
      body_html: '<p>Hi {{ contact.first_name }}</p><a href="{{ unsubscribe_url }}">unsubscribe</a>',
    })
    await acme.call('POST', `/api/v1/campaigns/${campaign.id}/launch`, { confirm: true })
    await eventually(async () => {
      expect((await acme.call('GET', `/api/v1/campaigns/${campaign.id}`)).status).toBe('sent')
    }, 15_000)
    const reached = (
      await rowsOf<{ to_address: string }>(
        t,
        sql`SELECT to_address FROM messages WHERE campaign_id = ${campaign.id} ORDER BY to_address`,
      )
    ).map((r) => r.to_address)
    expect(reached).toEqual(['embedded@example.com', 'hosted@example.com'])
    await context.close()
  })
})
