// Template delete refused in real Chromium: the boosted (htmx) form's 409 answer is swapped in,
// so the confirmation page shows the refusal naming the campaign, as an alert, and the template
// is still there. Once the campaign uses another template, the same button deletes it.
import { describe, expect, test } from 'bun:test'
import { adminApi } from '../../helpers/admin-api'
import {
  alertText,
  expectCleanPage,
  expectNoSeriousViolations,
  follow,
  usePortal,
  visit,
} from '../../helpers/browser'

const portal = await usePortal()
const api = await adminApi(portal.herald)

describe('template delete refused (browser)', () => {
  test('the 409 shows on the confirmation page; deleted once the campaign moved', async () => {
    const used = await api('POST', '/api/v1/templates', { name: 'Launch', subject: 'Hi', body_text: 'Hello' })
    const other = await api('POST', '/api/v1/templates', { name: 'Other', subject: 'Hi', body_text: 'Hey' })
    const campaign = await api('POST', '/api/v1/campaigns', { name: 'Spring', template_id: used.id })
    const page = await portal.pageAs('owner')

    await visit(page, `/admin/templates/${used.id}/delete`)
    const refused = await follow(page, page.getByRole('button', { name: 'Delete template' }))
    expect(refused.status()).toBe(409)
    expect(await alertText(page)).toContain(`The template is used by campaign ${campaign.id} (draft)`)
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Delete the template “Launch”?')
    await expectNoSeriousViolations(page)
    await expectCleanPage(page, { allowFailedResponses: true })
    expect(
      (await portal.herald.call('GET', `/api/v1/templates/${used.id}`, { key: portal.herald.adminKey }))
        .status,
    ).toBe(200)

    await api('PATCH', `/api/v1/campaigns/${campaign.id}`, { template_id: other.id })
    const done = await follow(page, page.getByRole('button', { name: 'Delete template' }))
    expect(done.status()).toBe(200)
    expect(new URL(page.url()).pathname).toBe('/admin/templates')
    expect(await page.locator('[role="status"]').allTextContents()).toContain(
      'Deleted the template “Launch”.',
    )
  })
})
