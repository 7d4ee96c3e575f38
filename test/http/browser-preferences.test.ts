// The preference centre in real Chromium: the link from a sent message opens the page (no script,
// its CSP intact, no serious axe violations); the person unticks one list, changes their name and
// saves; the next campaign to that list skips them while one to the other list reaches them.
// Then "unsubscribe from everything" through the same page.
import { describe, expect, test } from 'bun:test'
import { adminApi } from '../helpers/admin-api'
import { expectCleanPage, expectNoSeriousViolations, screenshot, usePortal, visit } from '../helpers/browser'
import { eventually } from '../helpers/receiver'

const portal = await usePortal({ workers: true })
const api = await adminApi(portal.herald)

/** Launches a campaign to `listId` and waits for it to finish; its messages' contact ids. */
async function campaignTo(listId: string, body_html = '<p>Hello</p>') {
  const c = await api('POST', '/api/v1/campaigns', {
    name: `To ${listId}`,
    list_id: listId,
    subject: 'Hi',
    body_html,
  })
  await api('POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
  await eventually(
    async () => expect((await api('GET', `/api/v1/campaigns/${c.id}`)).status).toBe('sent'),
    20_000,
  )
  const messages: { id: string; contact_id: string; status: string }[] = await api(
    'GET',
    `/api/v1/messages?campaign_id=${c.id}&limit=100`,
  )
  return messages.filter((m) => m.status !== 'skipped')
}

describe('preference centre (browser)', () => {
  test('untick a list and rename from a message’s link; the next campaigns follow the choice', async () => {
    const news = await api('POST', '/api/v1/lists', {
      name: 'news',
      public: true,
      public_name: 'Weekly news',
    })
    const deals = await api('POST', '/api/v1/lists', { name: 'Deals', public: true })
    const ann = await api('POST', '/api/v1/contacts', {
      email: 'ann@prefs.test',
      first_name: 'Ann',
      list_ids: [news.id, deals.id],
    })
    const bob = await api('POST', '/api/v1/contacts', {
      email: 'bob@prefs.test',
      list_ids: [news.id, deals.id],
    })

    // The link as Ann received it.
    const sent = await campaignTo(news.id, '<p><a href="{{ preferences_url }}">Your preferences</a></p>')
    const mine = sent.find((m) => m.contact_id === ann.id)!
    const full = await api('GET', `/api/v1/messages/${mine.id}`)
    const link = /href="([^"]+\/p\/[^"]+)"/.exec(full.body_html)![1]!
    expect(link.startsWith(`${portal.url}/p/`)).toBe(true)

    const page = await (await portal.anonymous()).newPage()
    await visit(page, link)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your preferences')
    expect(await page.locator('script').count()).toBe(0)
    const weekly = page.getByRole('checkbox', { name: 'Weekly news' })
    const dealsBox = page.getByRole('checkbox', { name: 'Deals' })
    expect(await weekly.isChecked()).toBe(true)
    expect(await dealsBox.isChecked()).toBe(true)
    await expectNoSeriousViolations(page)
    await screenshot(page, '/p/{token}')
    await expectCleanPage(page)

    await dealsBox.uncheck()
    await page.getByLabel('First name').fill('Annie')
    await page.getByLabel('Last name').fill('Lee')
    await Promise.all([page.waitForURL(link), page.getByRole('button', { name: 'Save' }).click()])
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your preferences are saved')
    await expectCleanPage(page)

    const contact = await api('GET', `/api/v1/contacts/${ann.id}`)
    expect([contact.first_name, contact.last_name]).toEqual(['Annie', 'Lee'])
    const consents: { list_id: string | null; action: string; source: string }[] = await api(
      'GET',
      `/api/v1/contacts/${ann.id}/consents`,
    )
    expect(consents.filter((c) => c.source === 'preferences')).toMatchObject([
      { list_id: deals.id, action: 'unsubscribed' },
    ])

    // Deals no longer reaches Ann (Bob still gets it); Weekly news still does.
    expect((await campaignTo(deals.id)).map((m) => m.contact_id)).toEqual([bob.id])
    expect((await campaignTo(news.id)).map((m) => m.contact_id).sort()).toEqual([ann.id, bob.id].sort())

    // Back to the page from its own link: Deals unticked; now leave everything.
    await page.getByRole('link', { name: 'Back to your preferences' }).click()
    await page.waitForURL(link)
    expect(await page.getByRole('checkbox', { name: 'Deals' }).isChecked()).toBe(false)
    await page.getByRole('checkbox', { name: 'Unsubscribe from everything' }).check()
    await Promise.all([page.waitForURL(link), page.getByRole('button', { name: 'Save' }).click()])
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('You are unsubscribed')
    await expectCleanPage(page)
    expect((await api('GET', `/api/v1/contacts/${ann.id}`)).status).toBe('unsubscribed')
    expect((await campaignTo(news.id)).map((m) => m.contact_id)).toEqual([bob.id])
  })
})
