// The portal's template delete (a confirmedAction) when the verb refuses: a template an unfinished
// campaign uses is not deleted, and the refusal is shown on the confirmation page with 409 (not
// an error page, not a redirect with a success flash). Once the campaign moves to another
// template, the same button deletes it.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { adminApi } from '../../helpers/admin-api'
import { createTestApp } from '../../helpers/app'
import { lazyOwner, PORTAL_ENV } from './portal-helpers'

// Sign-ins hash with argon2id; on a loaded 2-core machine a test can outlast the 5 s default.
setDefaultTimeout(60_000)

const t = await createTestApp({ env: PORTAL_ENV })
const key = await t.key({ scopes: ['admin:*'], clientId: t.defaultClientId })
const api = await adminApi(t, key)
const owner = lazyOwner(t)

describe('template delete refused in the portal', () => {
  test('409 on the confirmation page naming the campaign; deleted once it is free', async () => {
    const b = await owner()
    const used = await api('POST', '/api/v1/templates', { name: 'Launch', subject: 'Hi', body_text: 'Hello' })
    const other = await api('POST', '/api/v1/templates', { name: 'Other', subject: 'Hi', body_text: 'Hey' })
    const campaign = await api('POST', '/api/v1/campaigns', { name: 'Spring', template_id: used.id })

    const refused = await b.post(`/admin/templates/${used.id}/delete`)
    expect(refused.status).toBe(409)
    expect(refused.text).toContain('<div class="flash flash-error" role="alert">')
    expect(refused.text).toContain(`The template is used by campaign ${campaign.id} (draft)`)
    // Still the confirmation page (its button), and the template is still there.
    expect(refused.text).toContain(`action="/admin/templates/${used.id}/delete"`)
    expect((await b.get(`/admin/templates/${used.id}`)).status).toBe(200)
    // The refusal is not kept as a flash for the next page.
    expect((await b.get('/admin/templates')).text).not.toContain('is used by campaign')

    await api('PATCH', `/api/v1/campaigns/${campaign.id}`, { template_id: other.id })
    const done = await b.post(`/admin/templates/${used.id}/delete`)
    expect(done.status).toBe(303)
    expect(done.location).toBe('/admin/templates')
    expect((await b.get(`/admin/templates/${used.id}`)).status).toBe(404)
  })
})
