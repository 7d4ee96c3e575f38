// A campaign held back by the hourly cap, in real Chromium: its page says how many messages
// wait and until when, the dashboard says that the client is held back, and both pass axe.
import { describe, expect, test } from 'bun:test'
import { createCaptureProvider } from '../../../src/channels/capture'
import { createSendWorker } from '../../../src/queue/worker'
import { sendDeps } from '../../../src/sending'
import { adminApi } from '../../helpers/admin-api'
import {
  expectCleanPage,
  expectNoSeriousViolations,
  screenshot,
  usePortal,
  visit,
} from '../../helpers/browser'
import { allChannels } from '../../helpers/sender'

const portal = await usePortal({ env: { HERALD_CLIENT_HOURLY_CAP: '2' } })
const herald = portal.herald
const api = await adminApi(herald)

describe('a campaign held back (browser)', () => {
  test('its page and the dashboard say that messages wait for the hourly cap', async () => {
    const list = await api('POST', '/api/v1/lists', { name: 'Capped' })
    for (const i of [0, 1, 2, 3])
      await api('POST', '/api/v1/contacts', { email: `capped${i}@browser.test`, list_ids: [list.id] })
    const c = await api('POST', '/api/v1/campaigns', {
      name: 'Capped launch',
      list_id: list.id,
      subject: 'Hi',
      body_html: '<p>Hi</p>',
    })
    await api('POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
    await createSendWorker(herald.ctx, sendDeps, { providers: allChannels(createCaptureProvider()) }).drain()

    const page = await portal.pageAs('owner')
    await visit(page, `/admin/campaigns/${c.id}`)
    expect(await page.locator('#campaign-held').innerText()).toMatch(
      /^Held back by the hourly sending cap: 2 message\(s\) wait until .+\.$/,
    )
    await expectNoSeriousViolations(page)
    await screenshot(page, '/admin/campaigns/held-back')
    await expectCleanPage(page)

    await visit(page, '/admin')
    expect(await page.locator('#held-back').innerText()).toContain('Held back: 2 message(s) of 1 campaign(s)')
    await expectNoSeriousViolations(page)
    await expectCleanPage(page)
  })
})
