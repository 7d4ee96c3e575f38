import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../../helpers/app'
import { PORTAL_ENV, signIn } from './portal-helpers'

// /admin/api-keys over the api-keys verbs: the key shown once, usable over REST, listed by its
// 12-character prefix only, revoked after a confirmation page.

const t = await createTestApp({ env: PORTAL_ENV })

const keyOf = (html: string) =>
  /id="new-key" type="text" readonly value="(hrld_[A-Za-z0-9]+)"/.exec(html)?.[1]

describe('/admin/api-keys', () => {
  test('create → shown once → works over REST → listed by prefix → revoke behind a confirmation', async () => {
    const b = await signIn(t)
    const form = await b.get('/admin/api-keys/new')
    expect(form.status).toBe(200)
    expect(form.text).toContain('value="contacts:read"')
    expect(form.text).toContain('<option value="standard" selected>')

    const created = await b.post('/admin/api-keys', {
      name: 'CRM sync',
      scopes: ['contacts:read', 'contacts:write'],
      tier: 'growth',
    })
    expect(created.status).toBe(200)
    expect(created.headers.get('cache-control')).toBe('no-store')
    const key = keyOf(created.text)!
    expect(key).toBeDefined()
    expect(created.text).toContain('shown only once')

    // The key acts in the chosen workspace, with its scopes.
    const rest = await t.call('GET', '/api/v1/contacts', { key })
    expect(rest.status).toBe(200)
    expect((await t.call('GET', '/api/v1/api-keys', { key })).status).toBe(403)

    // The list shows the 12-character prefix and never the key.
    const list = await b.get('/admin/api-keys')
    expect(list.text).toContain('CRM sync')
    expect(list.text).toContain(`<code>${key.slice(0, 12)}…</code>`)
    expect(list.text).not.toContain(key)
    expect(list.text).toContain('contacts:read, contacts:write')
    const id = /href="\/admin\/api-keys\/([^/"]+)\/revoke"/.exec(list.text)![1]!

    // Revoke: a confirmation page (GET changes nothing), then the POST.
    const confirm = await b.get(`/admin/api-keys/${id}/revoke`)
    expect(confirm.status).toBe(200)
    expect(confirm.text).toContain('Revoke “CRM sync”?')
    expect(confirm.text).toContain(`action="/admin/api-keys/${id}/revoke"`)
    expect((await t.call('GET', '/api/v1/contacts', { key })).status).toBe(200)

    const revoked = await b.post(`/admin/api-keys/${id}/revoke`)
    expect(revoked.status).toBe(303)
    expect(revoked.location).toBe('/admin/api-keys')
    expect((await t.call('GET', '/api/v1/contacts', { key })).status).toBe(401)
    const after = await b.get('/admin/api-keys')
    expect(after.text).toMatch(/role="status">Revoked the key “CRM sync”/)
    expect(after.text).toContain('revoked ')
    // The flash shows once.
    expect((await b.get('/admin/api-keys')).text).not.toContain('role="status"')
  })

  test('invalid form → 422, the form again with messages next to the fields and the values kept', async () => {
    const b = await signIn(t)
    const res = await b.post('/admin/api-keys', { name: '   ', tier: 'growth' })
    expect(res.status).toBe(422)
    expect(res.text).toContain('role="alert"')
    expect(res.text).toMatch(/id="name-error" class="field-error">[^<]+</)
    expect(res.text).toMatch(/id="scopes-error" class="field-error">[^<]+</)
    expect(res.text).toContain('aria-describedby="name-error"')
    expect(res.text).toContain('<option value="growth" selected>')
    const kept = await b.post('/admin/api-keys', {
      name: 'Kept name',
      scopes: ['bogus:scope', 'contacts:read'],
    })
    expect(kept.status).toBe(422)
    expect(kept.text).toContain('value="Kept name"')
    expect(kept.text).toMatch(/value="contacts:read" checked/)
  })

  test('htmx: a partial answer (no layout), same status', async () => {
    const b = await signIn(t)
    const res = await b.post('/admin/api-keys', { name: '' }, { 'hx-request': 'true' })
    expect(res.status).toBe(422)
    expect(res.text).not.toContain('<html')
    expect(res.text).toContain('<title>New API key · Herald</title>')
  })

  test('in "All workspaces" the key is platform-wide; in a workspace it is that client’s', async () => {
    const b = await signIn(t)
    await b.post('/admin/workspace', { workspace: '' })
    const platform = keyOf(
      (await b.post('/admin/api-keys', { name: 'platform', scopes: 'contacts:read' })).text,
    )!
    const other = await t.client('Elsewhere')
    await b.post('/admin/workspace', { workspace: other })
    const tenant = keyOf((await b.post('/admin/api-keys', { name: 'tenant', scopes: 'contacts:read' })).text)!
    const keys = (await t.call('GET', '/api/v1/api-keys')).body.data as {
      name: string
      client_id: string | null
    }[]
    expect(keys.find((k) => k.name === 'platform')!.client_id).toBeNull()
    expect(keys.find((k) => k.name === 'tenant')!.client_id).toBe(other)
    expect(platform).not.toBe(tenant)
    // The list in a workspace shows that workspace's keys only.
    const list = (await b.get('/admin/api-keys')).text
    expect(list).toContain('tenant')
    expect(list).not.toContain('>platform<')
  })

  test('the list shows its count and an "Older" link to the next 50 keys', async () => {
    const b = await signIn(t)
    for (let i = 0; i < 51; i++) await t.key({ scopes: ['contacts:read'], clientId: t.defaultClientId })
    const first = await b.get('/admin/api-keys')
    const count = /<p class="pagination">(\d+) in all\./.exec(first.text)?.[1]
    expect(Number(count)).toBeGreaterThan(50)
    const older = /<a href="(\/admin\/api-keys\?cursor=[^"]+)">Older<\/a>/.exec(first.text)?.[1]
    expect(older).toBeDefined()
    const next = await b.get(older!)
    expect(next.status).toBe(200)
    expect(next.text).toContain(`<p class="pagination">${count} in all.</p>`)
  })

  test('an unknown or malformed key id → 404 page', async () => {
    const b = await signIn(t)
    expect((await b.get('/admin/api-keys/01a20a7f-0000-7000-8000-000000000000/revoke')).status).toBe(404)
    expect((await b.get('/admin/api-keys/not-an-id/revoke')).status).toBe(404)
    expect((await b.post('/admin/api-keys/not-an-id/revoke')).status).toBe(404)
  })
})
