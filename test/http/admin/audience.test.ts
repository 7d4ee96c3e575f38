// The audience pages of the portal (contacts, imports, lists, segments, suppressions), driven
// in-process like a browser without JavaScript: status, content, per-field 422s, confirmation
// pages, and the roles (a viewer cannot change anything; a member sees only its clients' records).
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { clients, contacts } from '../../../src/db/schema'
import { inTransaction } from '../../../src/db/transaction'
import { createImportWorker } from '../../../src/services/imports/runner'
import { adminApi } from '../../helpers/admin-api'
import { BASE, createTestApp } from '../../helpers/app'
import { type Browser, csrfOf, idFrom, lazyOwner, makeUser, PORTAL_ENV, signIn } from './portal-helpers'

// Sign-ins hash with argon2id; on a loaded 2-core machine a test can outlast the 5 s default.
setDefaultTimeout(60_000)

const t = await createTestApp({ env: PORTAL_ENV })
const imports = createImportWorker(t.ctx)
const other = await t.client('Other')
const key = await t.key({ scopes: ['admin:*'], clientId: t.defaultClientId })

const owner = lazyOwner(t)

const api = await adminApi(t, key)

/** A multipart form post (the CSV upload) with the browser's cookies and CSRF token. */
async function postMultipart(b: Browser, path: string, form: FormData) {
  form.append('_csrf', b.csrf)
  const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  const res = await t.app.handle(
    new Request(BASE + path, { method: 'POST', body: form, headers: { cookie } }),
  )
  return { status: res.status, location: res.headers.get('location'), text: await res.text() }
}

describe('contacts pages', () => {
  test('empty state, create, detail with timeline and messages, search, filters, edit, 422 next to fields', async () => {
    const b = await owner()
    const empty = await b.get('/admin/contacts')
    expect(empty.status).toBe(200)
    expect(empty.text).toContain('No contacts yet')
    expect(empty.text).toContain('href="/admin/imports/new"')

    const list = await api('POST', '/api/v1/lists', { name: 'Customers' })
    const created = await b.post('/admin/contacts', {
      email: 'ann.lee@acme.io',
      first_name: 'Ann',
      last_name: 'Lee',
      company: 'Acme & Co',
      custom_fields: '{"plan": "pro"}',
      list_ids: [list.id],
    })
    expect(created.status).toBe(303)
    const id = idFrom(created.location)
    const detail = await b.get(`/admin/contacts/${id}`)
    expect(detail.status).toBe(200)
    expect(detail.text).toContain('Added ann.lee@acme.io.')
    expect(detail.text).toContain('Acme &amp; Co')
    expect(detail.text).toContain('plan')
    expect(detail.text).toContain('Nothing has happened to this contact yet')
    expect(detail.text).toContain('No messages to this contact yet')

    // A message to the contact shows on its page.
    await api('POST', '/api/v1/messages', { contact_id: id, subject: 'Hi', body_text: 'Hello' }).catch(
      () => null,
    )
    await api('POST', '/api/v1/contacts', {
      email: 'bob@globex.io',
      first_name: 'Bob',
      status: 'unsubscribed',
    })

    const all = await b.get('/admin/contacts')
    expect(all.text).toContain('2 in')
    const search = await b.get('/admin/contacts?q=ann.lee%40acme')
    expect(search.text).toContain('ann.lee@acme.io')
    expect(search.text).not.toContain('bob@globex.io')
    const unsub = await b.get('/admin/contacts?status=unsubscribed')
    expect(unsub.text).toContain('bob@globex.io')
    expect(unsub.text).not.toContain('ann.lee@acme.io')
    const inList = await b.get(`/admin/contacts?list_id=${list.id}`)
    expect(inList.text).toContain('ann.lee@acme.io')
    expect(inList.text).not.toContain('bob@globex.io')
    const none = await b.get('/admin/contacts?status=complained')
    expect(none.text).toContain('No contacts match')

    const edit = await b.get(`/admin/contacts/${id}/edit`)
    expect(edit.text).toContain('value="Ann"')
    const saved = await b.post(`/admin/contacts/${id}`, {
      email: 'ann.lee@acme.io',
      first_name: 'Annie',
      last_name: '',
      company: 'Acme',
      status: 'unsubscribed',
      custom_fields: '{"plan": "team"}',
    })
    expect(saved.status).toBe(303)
    // The change is on the contact's timeline.
    const timeline = await b.get(`/admin/contacts/${id}`)
    expect(timeline.text).toContain('<strong>contact.unsubscribed</strong>')
    const after = await api('GET', `/api/v1/contacts/${id}`)
    expect(after).toMatchObject({ first_name: 'Annie', last_name: null, custom_fields: { plan: 'team' } })

    const bad = await b.post('/admin/contacts', { email: 'not-an-email', phone: '12' })
    expect(bad.status).toBe(422)
    expect(bad.text).toContain('id="email-error"')
    expect(bad.text).toContain('id="phone-error"')
    expect(bad.text).toContain('value="not-an-email"')
    const badJson = await b.post('/admin/contacts', { email: 'x@example.com', custom_fields: '{nope' })
    expect(badJson.status).toBe(422)
    expect(badJson.text).toContain('id="custom_fields-error"')
    const dup = await b.post('/admin/contacts', { email: 'ANN.LEE@acme.io' })
    expect(dup.status).toBe(409)
  })

  test('pagination keeps the filters; erase behind a confirmation page', async () => {
    const b = await owner()
    for (let i = 0; i < 55; i++)
      await api('POST', '/api/v1/contacts', { email: `page${i}@x.io`, status: 'blocked' })
    const first = await b.get('/admin/contacts?status=blocked')
    const next = /href="([^"]*cursor=[^"]*)"/.exec(first.text)?.[1]?.replaceAll('&amp;', '&')
    expect(next).toContain('status=blocked')
    const second = await b.get(next!)
    expect(second.status).toBe(200)
    expect((second.text.match(/page\d+@x\.io/g) ?? []).length).toBe(5)

    const c = await api('POST', '/api/v1/contacts', { email: 'erase.me@x.io' })
    const confirm = await b.get(`/admin/contacts/${c.id}/erase`)
    expect(confirm.status).toBe(200)
    expect(confirm.text).toContain('cannot be undone')
    expect((await t.call('GET', `/api/v1/contacts/${c.id}`, { key })).status).toBe(200)
    const erased = await b.post(`/admin/contacts/${c.id}/erase`)
    expect(erased.status).toBe(303)
    expect((await b.get('/admin/contacts')).text).toContain('Erased the contact')
    expect((await t.call('GET', `/api/v1/contacts/${c.id}`, { key })).status).toBe(404)
    expect((await b.get(`/admin/contacts/${c.id}`)).status).toBe(404)
  })

  test('export downloads CSV through the export verb', async () => {
    const b = await owner()
    const res = await b.get('/admin/contacts/export')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/csv')
    expect(res.text.split('\n')[0]).toContain('email')
    expect(res.text).toContain('ann.lee@acme.io')
  })
})

describe('imports pages', () => {
  test('upload a CSV → import page polls a progress fragment until completed, error rows listed', async () => {
    const b = await owner()
    expect((await b.get('/admin/imports')).text).toContain('No imports yet')
    const list = await api('POST', '/api/v1/lists', { name: 'Imported' })
    const form = new FormData()
    form.append(
      'file',
      new File(['email,first_name,plan\nimp1@x.io,Imp,pro\nbad-address,X,\nimp2@x.io,Two,free\n'], 'c.csv', {
        type: 'text/csv',
      }),
    )
    form.append('list_id', list.id)
    const res = await postMultipart(b, '/admin/imports', form)
    expect(res.status).toBe(303)
    const id = idFrom(res.location)
    const queued = await b.get(`/admin/imports/${id}`)
    expect(queued.text).toContain('Upload received')
    expect(queued.text).toContain(`hx-get="/admin/imports/${id}/progress"`)
    expect(queued.text).toContain('<progress')

    await imports.drain()
    const frag = await b.get(`/admin/imports/${id}/progress`, { 'hx-request': 'true' })
    expect(frag.status).toBe(200)
    expect(frag.text).not.toContain('<html')
    expect(frag.text).not.toContain('hx-trigger') // done: the polling stops
    expect(frag.text).toContain('data-status="completed"')
    expect(frag.text).toContain('value="100"')
    expect(frag.text).toContain('bad-address')
    expect(frag.text).toMatch(/2 inserted/)
    expect((await api('GET', `/api/v1/lists/${list.id}`)).member_count).toBe(2)

    const index = await b.get('/admin/imports')
    expect(index.text).toContain(`/admin/imports/${id}`)
    expect(index.text).toContain('completed')
  })

  test('no file → 422 next to the file field', async () => {
    const b = await owner()
    const res = await postMultipart(b, '/admin/imports', new FormData())
    expect(res.status).toBe(422)
    expect(res.text).toContain('id="file-error"')
  })
})

describe('lists pages', () => {
  test('create, add members by search and by id, remove, delete behind confirmation', async () => {
    const b = await owner()
    const bad = await b.post('/admin/lists', { name: '' })
    expect(bad.status).toBe(422)
    expect(bad.text).toContain('id="name-error"')
    const created = await b.post('/admin/lists', { name: 'VIP', description: 'Best' })
    expect(created.status).toBe(303)
    const id = idFrom(created.location)
    const page = await b.get(`/admin/lists/${id}`)
    expect(page.text).toContain('no members yet')

    const found = await b.get(`/admin/lists/${id}?find=page1`)
    const ids = [...found.text.matchAll(/name="contact_ids" value="([^"]+)"/g)].map((m) => m[1]!)
    expect(ids.length).toBeGreaterThan(0)
    const added = await b.post(`/admin/lists/${id}/add`, { contact_ids: ids })
    expect(added.status).toBe(303)
    const c = await api('POST', '/api/v1/contacts', { email: 'by.id@x.io' })
    await b.post(`/admin/lists/${id}/add`, { ids: `${c.id}\n` })
    const withMembers = await b.get(`/admin/lists/${id}`)
    expect(withMembers.text).toContain('by.id@x.io')
    expect((await api('GET', `/api/v1/lists/${id}`)).member_count).toBe(ids.length + 1)

    const badIds = await b.post(`/admin/lists/${id}/add`, { ids: 'nope' })
    expect(badIds.status).toBe(422)
    expect(badIds.text).toContain('id="contact_ids-error"')

    await b.post(`/admin/lists/${id}/remove`, { contact_ids: [c.id] })
    expect((await api('GET', `/api/v1/lists/${id}`)).member_count).toBe(ids.length)

    const confirm = await b.get(`/admin/lists/${id}/delete`)
    expect(confirm.text).toContain('Delete list')
    expect((await b.post(`/admin/lists/${id}/delete`)).status).toBe(303)
    expect((await t.call('GET', `/api/v1/lists/${id}`, { key })).status).toBe(404)
  })
})

describe('list settings and a contact’s consent', () => {
  test('opt-in and preference-centre settings save; the contact page lists consent and exports JSON', async () => {
    const b = await owner()
    const created = await b.post('/admin/lists', { name: 'Weekly', opt_in: 'double', public: 'on' })
    expect(created.status).toBe(303)
    const id = idFrom(created.location)
    expect(await api('GET', `/api/v1/lists/${id}`)).toMatchObject({ opt_in: 'double', public: true })
    const saved = await b.post(`/admin/lists/${id}/settings`, { opt_in: 'single', public_name: 'The weekly' })
    expect(saved.status).toBe(303)
    expect(await api('GET', `/api/v1/lists/${id}`)).toMatchObject({
      opt_in: 'single',
      public: false,
      public_name: 'The weekly',
    })
    expect((await b.post(`/admin/lists/${id}/settings`, { opt_in: 'triple' })).status).toBe(422)

    const c = await api('POST', '/api/v1/contacts', { email: 'consent@x.io' })
    await b.post(`/admin/lists/${id}/add`, { ids: `${c.id}\n` })
    const detail = await b.get(`/admin/contacts/${c.id}`)
    expect(detail.text).toContain('id="consents-h"')
    expect(detail.text).toMatch(
      /<td>subscribed<\/td>\s*<td><a href="\/admin\/lists\/[^"]+">Weekly<\/a><\/td>\s*<td>admin<\/td>/,
    )
    await api('PATCH', `/api/v1/contacts/${c.id}`, { sms_opt_out: true })
    expect((await b.get(`/admin/contacts/${c.id}`)).text).toContain('replied STOP')
    const file = await b.get(`/admin/contacts/${c.id}/export`)
    expect(file.status).toBe(200)
    expect(JSON.parse(file.text).data.consents.items[0]).toMatchObject({
      action: 'subscribed',
      source: 'admin',
    })
  })
})

describe('segments pages', () => {
  const rule = (g: number, r: number, fields: Record<string, string | string[]>) =>
    Object.fromEntries(Object.entries(fields).map(([k, v]) => [`g${g}.r${r}.${k}`, v]))

  test('builder: add a rule and a group by form posts, live estimate fragment, save, preview, per-rule 422', async () => {
    const b = await owner()
    const blank = await b.get('/admin/segments/new')
    expect(blank.status).toBe(200)
    expect(blank.text).toContain('name="g0.r0.field"')

    const base = {
      name: 'Blocked pages',
      match: 'all',
      'g0.match': 'all',
      ...rule(0, 0, { field: 'email', operator: 'starts_with', value: 'page' }),
    }
    const sized = await b.post('/admin/segments', { ...base, action: 'refresh' })
    expect(sized.status).toBe(200)
    expect(sized.text).toContain('data-size="55"')
    const more = await b.post('/admin/segments', { ...base, action: 'add-rule-0' })
    expect(more.status).toBe(200)
    expect(more.text).toContain('name="g0.r1.field"')
    // The new rule has no value yet: the size waits for it.
    expect(more.text).toContain('Complete the rules')
    const grouped = await b.post('/admin/segments', { ...base, action: 'add-group' })
    expect(grouped.text).toContain('name="g1.match"')

    const est = await b.post(
      '/admin/segments/estimate',
      { ...base, ...rule(0, 1, { field: 'status', operator: 'eq', value: 'blocked' }) },
      { 'hx-request': 'true' },
    )
    expect(est.status).toBe(200)
    expect(est.text).not.toContain('<main')
    expect(est.text).toContain('data-size="55"')
    const narrower = await b.post('/admin/segments/estimate', {
      ...base,
      ...rule(0, 1, { field: 'email', operator: 'eq', value: 'page7@x.io' }),
    })
    expect(narrower.text).toContain('data-size="1"')
    const incomplete = await b.post('/admin/segments/estimate', {
      ...base,
      ...rule(0, 1, { field: 'created_at', operator: 'within_last_days', value: 'soon' }),
    })
    expect(incomplete.text).toContain('Complete the rules')

    const bad = await b.post('/admin/segments', {
      ...base,
      ...rule(0, 1, { field: 'created_at', operator: 'within_last_days', value: 'soon' }),
      action: 'save',
    })
    expect(bad.status).toBe(422)
    expect(bad.text).toContain('id="g0-r1-error"')
    expect(bad.text).toContain('whole number of days')

    const list = await api('POST', '/api/v1/lists', { name: 'Seg list' })
    const saved = await b.post('/admin/segments', {
      ...base,
      'g1.match': 'any',
      ...rule(1, 0, { field: 'list', operator: 'not_in', lists: [list.id] }),
      ...rule(1, 1, {
        field: 'event',
        event: 'opened',
        operator: 'has_not',
        within_days: '30',
        min_count: '1',
      }),
      ...rule(1, 2, { field: 'custom', key: 'plan', operator: 'not_exists' }),
      action: 'save',
    })
    expect(saved.status).toBe(303)
    const id = idFrom(saved.location)
    const show = await b.get(`/admin/segments/${id}`)
    expect(show.text).toContain('about 55 contacts match')
    expect(show.text).toContain('page54@x.io')
    const stored = await api('GET', `/api/v1/segments/${id}`)
    expect(stored.rule_groups[1]).toEqual({
      match: 'any',
      rules: [
        { field: 'list', operator: 'not_in', value: [list.id] },
        { field: 'event', event: 'opened', operator: 'has_not', within_days: 30, min_count: 1 },
        { field: 'custom.plan', operator: 'not_exists' },
      ],
    })

    // Edit: the builder is refilled from the saved rules; removing a rule re-renders.
    const edit = await b.get(`/admin/segments/${id}/edit`)
    expect(edit.text).toContain('value="page"')
    expect(edit.text).toMatch(/<option value="not_in" selected>/)
    const removed = await b.post(`/admin/segments/${id}`, { ...base, action: 'remove-rule-0-0' })
    expect(removed.text).not.toContain('name="g0.r0.field"')
    const updated = await b.post(`/admin/segments/${id}`, { ...base, name: 'Renamed', action: 'save' })
    expect(updated.status).toBe(303)
    expect((await api('GET', `/api/v1/segments/${id}`)).name).toBe('Renamed')

    expect((await b.get(`/admin/segments/${id}/delete`)).text).toContain('Delete segment')
    expect((await b.post(`/admin/segments/${id}/delete`)).status).toBe(303)
    expect((await t.call('GET', `/api/v1/segments/${id}`, { key })).status).toBe(404)
  })
})

describe('suppressions pages', () => {
  test('add, search by prefix, remove behind confirmation', async () => {
    const b = await owner()
    expect((await b.get('/admin/suppressions')).text).toContain('No suppressions yet')
    expect((await b.post('/admin/suppressions', { email: 'nope' })).status).toBe(422)
    expect((await b.post('/admin/suppressions', { email: 'Spam.Trap@x.io', reason: 'trap' })).status).toBe(
      303,
    )
    await b.post('/admin/suppressions', { email: 'other@y.io' })
    const found = await b.get('/admin/suppressions?q=SPAM')
    expect(found.text).toContain('spam.trap@x.io')
    expect(found.text).not.toContain('<td>other@y.io')
    const link = /href="(\/admin\/suppressions\/remove\?[^"]+)"/
      .exec(found.text)![1]!
      .replaceAll('&amp;', '&')
    const confirm = await b.get(link)
    expect(confirm.text).toContain('Remove suppression')
    expect((await b.post('/admin/suppressions/remove', { email: 'spam.trap@x.io' })).status).toBe(303)
    const after = await b.get('/admin/suppressions')
    expect(after.text).toContain('Removed the suppression of spam.trap@x.io')
    expect(after.text).not.toContain('<td>spam.trap@x.io')
    expect(after.text).toContain('<td>other@y.io')
  })
})

describe('roles', () => {
  test('a viewer reads but cannot post; a member of another client gets 404 for these records', async () => {
    const c = await api('POST', '/api/v1/contacts', { email: 'private@x.io' })
    const l = await api('POST', '/api/v1/lists', { name: 'Private' })
    const s = await api('POST', '/api/v1/segments', {
      name: 'Private seg',
      rule_groups: [{ match: 'all', rules: [{ field: 'email', operator: 'exists' }] }],
    })

    const viewer = await signIn(t, await makeUser(t, { role: 'viewer' }))
    expect((await viewer.get('/admin/contacts')).status).toBe(200)
    expect((await viewer.get(`/admin/contacts/${c.id}`)).status).toBe(200)
    expect((await viewer.post('/admin/contacts', { email: 'v@x.io' })).status).toBe(403)
    expect((await viewer.post(`/admin/contacts/${c.id}/erase`)).status).toBe(403)
    expect((await viewer.post('/admin/lists', { name: 'V' })).status).toBe(403)
    expect((await viewer.post('/admin/suppressions', { email: 'v@x.io' })).status).toBe(403)
    expect(
      (
        await viewer.post('/admin/segments', {
          name: 'V',
          'g0.match': 'all',
          'g0.r0.field': 'email',
          'g0.r0.operator': 'exists',
          action: 'save',
        })
      ).status,
    ).toBe(403)

    const elsewhere = await signIn(t, await makeUser(t, { role: 'member', clients: [other] }))
    for (const path of [
      `/admin/contacts/${c.id}`,
      `/admin/lists/${l.id}`,
      `/admin/segments/${s.id}`,
      `/admin/contacts/${c.id}/erase`,
    ])
      expect((await elsewhere.get(path)).status).toBe(404)
    const theirs = await elsewhere.get('/admin/contacts')
    expect(theirs.text).not.toContain('private@x.io')
    expect((await elsewhere.post(`/admin/contacts/${c.id}/erase`)).status).toBe(404)

    // A member of the client sees them.
    const member = await signIn(t, await makeUser(t, { role: 'member', clients: [t.defaultClientId] }))
    expect((await member.get(`/admin/contacts/${c.id}`)).status).toBe(200)
    expect(csrfOf((await member.get('/admin/lists')).text)).not.toBe('')
  }, 60_000)
})

describe('filtered totals', () => {
  test('a status filter counts up to 10,000 and then says "more than"', async () => {
    const b = await owner()
    // Written straight into the table (10,001 API calls would take minutes; the last test of the
    // file, as they are not in the search index): only the status count reads them.
    const clientNo = (await t.ctx.db.select().from(clients).where(eq(clients.id, t.defaultClientId)))[0]!.no
    await inTransaction(t.ctx.sqlite, async () => {
      for (let i = 0; i < 10_001; i += 1_000)
        await t.ctx.db.insert(contacts).values(
          Array.from({ length: Math.min(1_000, 10_001 - i) }, (_, k) => ({
            id: Bun.randomUUIDv7(),
            clientId: t.defaultClientId,
            clientNo,
            email: `many${i + k}@x.io`,
            status: 'complained' as const,
            createdAt: Date.now(),
            updatedAt: Date.now(),
          })),
        )
    })
    const page = await b.get('/admin/contacts?status=complained')
    expect(page.text).toContain('More than 10,000 matching')
    // Below the cap the count is exact.
    expect((await b.get('/admin/contacts?status=blocked')).text).toContain('55 matching')
  })
})
