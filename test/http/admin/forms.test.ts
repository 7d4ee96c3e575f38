// The portal's Forms section, driven in-process like a browser without JavaScript: the empty
// state, create with lists, fields and consent, 422 next to the fields, the form's page with its
// hosted link and embed HTML, edit, delete behind a confirmation, and a viewer kept to reading.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { adminApi } from '../../helpers/admin-api'
import { createTestApp } from '../../helpers/app'
import { idFrom, lazyOwner, makeUser, PORTAL_ENV, signIn } from './portal-helpers'

// Sign-ins hash with argon2id; on a loaded 2-core machine a test can outlast the 5 s default.
setDefaultTimeout(60_000)

const t = await createTestApp({ env: PORTAL_ENV })
const key = await t.key({ scopes: ['admin:*'], clientId: t.defaultClientId })
const api = await adminApi(t, key)
const owner = lazyOwner(t)

describe('forms pages', () => {
  test('empty, create, 422 by the field, show with link and embed, edit, delete', async () => {
    const b = await owner()
    const empty = await b.get('/admin/forms')
    expect(empty.status).toBe(200)
    expect(empty.text).toContain('No forms yet')
    expect(empty.text).toMatch(/href="\/admin\/forms"[^>]*>\s*Forms/)
    const list = await api('POST', '/api/v1/lists', { name: 'Bakery news' })

    const blank = await b.get('/admin/forms/new')
    expect(blank.text).toContain('Bakery news')
    const refused = await b.post('/admin/forms', {
      name: 'No list',
      consent_text: 'Yes',
      double_opt_in: 'on',
    })
    expect(refused.status).toBe(422)
    expect(refused.text).toContain('list_ids-error')

    const made = await b.post('/admin/forms', {
      name: 'Footer',
      list_ids: [list.id],
      fields: ['first_name'],
      custom_fields: 'city',
      consent_text: 'Send me the news',
      double_opt_in: 'on',
      success_url: 'https://bakery.example/thanks',
    })
    expect(made.status).toBe(303)
    const id = idFrom(made.location)
    const shown = await b.get(`/admin/forms/${id}`)
    expect(shown.status).toBe(200)
    expect(shown.text).toContain(`href="http://localhost:8080/f/${id}"`)
    expect(shown.text).toContain('&lt;form method=&#34;post&#34;')
    expect(shown.text).toMatch(/<textarea id="embed" readonly/)
    const saved = await api('GET', `/api/v1/forms/${id}`)
    expect(saved).toMatchObject({
      fields: ['email', 'first_name', 'custom.city'],
      double_opt_in: true,
      success_url: 'https://bakery.example/thanks',
    })

    const edited = await b.post(`/admin/forms/${id}`, {
      name: 'Footer',
      list_ids: [list.id],
      consent_text: 'Send me the news',
      status: 'disabled',
    })
    expect(edited.status).toBe(303)
    expect(await api('GET', `/api/v1/forms/${id}`)).toMatchObject({
      status: 'disabled',
      double_opt_in: false,
      fields: ['email'],
      success_url: null,
    })
    expect((await b.get(`/admin/forms/${id}/delete`)).text).toContain('Delete the form')
    expect((await b.post(`/admin/forms/${id}/delete`)).status).toBe(303)
    expect((await b.get(`/admin/forms/${id}`)).status).toBe(404)
  })

  test('a viewer reads but cannot create', async () => {
    const viewer = await signIn(t, await makeUser(t, { role: 'viewer' }))
    expect((await viewer.get('/admin/forms')).status).toBe(200)
    expect((await viewer.post('/admin/forms', { name: 'V', consent_text: 'x' })).status).toBe(403)
  })
})
