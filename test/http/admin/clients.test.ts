import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { clients } from '../../../src/db/schema'
import { createTestApp } from '../../helpers/app'
import { makeUser, PORTAL_ENV, signIn } from './portal-helpers'

// /admin/clients: the create and edit forms carry the client's time zone (a text field with the
// known zones as suggestions); an unknown zone is the verb's 422, shown next to the field with
// the typed value kept; empty clears it (UTC).

const t = await createTestApp({ env: PORTAL_ENV })

const zoneOf = async (id: string) =>
  (await t.ctx.db.select({ timezone: clients.timezone }).from(clients).where(eq(clients.id, id)))[0]!.timezone

describe('/admin/clients time zone', () => {
  test('create with a zone, edit it, a bad zone is a 422 on the field, empty clears it', async () => {
    const b = await signIn(t)
    const form = await b.get('/admin/clients/new')
    expect(form.text).toContain('id="timezone" name="timezone"')
    expect(form.text).toContain('list="timezones"')
    expect(form.text).toContain('<option value="America/New_York"></option>')
    expect(form.text).toContain('<option value="UTC"></option>')

    const badNew = await b.post('/admin/clients', { name: 'Cafe', timezone: 'Mars/Base' })
    expect(badNew.status).toBe(422)
    expect(badNew.text).toContain('id="timezone-error"')
    expect(badNew.text).toContain('value="Mars/Base"')

    expect((await b.post('/admin/clients', { name: 'Cafe', timezone: 'America/New_York' })).status).toBe(303)
    const list = await b.get('/admin/clients')
    const id = /<td>Cafe<\/td>[\s\S]*?href="\/admin\/clients\/([^/"]+)\/edit"/.exec(list.text)![1]!
    expect(list.text).toMatch(/<td>Cafe<\/td>\s*<td>—<\/td>\s*<td>America\/New_York<\/td>/)
    expect(await zoneOf(id)).toBe('America/New_York')

    const edit = await b.get(`/admin/clients/${id}/edit`)
    expect(edit.status).toBe(200)
    expect(edit.text).toContain(`action="/admin/clients/${id}"`)
    expect(edit.text).toContain('value="America/New_York"')

    const bad = await b.post(`/admin/clients/${id}`, {
      name: 'Cafe',
      industry: '',
      timezone: 'Europe/Atlantis',
    })
    expect(bad.status).toBe(422)
    expect(bad.text).toMatch(/id="timezone"[^>]*aria-invalid="true"/)
    expect(bad.text).toContain(
      '<small id="timezone-error" class="field-error">must be an IANA time zone name',
    )
    expect(bad.text).toContain('value="Europe/Atlantis"')
    expect(await zoneOf(id)).toBe('America/New_York')

    const saved = await b.post(`/admin/clients/${id}`, {
      name: 'Cafe',
      industry: 'food',
      timezone: 'Asia/Tokyo',
    })
    expect(saved.status).toBe(303)
    expect(await zoneOf(id)).toBe('Asia/Tokyo')
    expect((await b.get('/admin/clients')).text).toContain('Saved Cafe (time zone Asia/Tokyo).')

    expect(
      (await b.post(`/admin/clients/${id}`, { name: 'Cafe', industry: 'food', timezone: '' })).status,
    ).toBe(303)
    expect(await zoneOf(id)).toBeNull()
    expect((await b.get('/admin/clients')).text).toMatch(/<td>Cafe<\/td>\s*<td>food<\/td>\s*<td>UTC<\/td>/)
  })

  test('an unknown client is a 404; a member may not save a client', async () => {
    const b = await signIn(t)
    expect((await b.get('/admin/clients/00000000-0000-7000-8000-000000000000/edit')).status).toBe(404)
    expect((await b.post('/admin/clients/00000000-0000-7000-8000-000000000000', { name: 'X' })).status).toBe(
      404,
    )
    const member = await signIn(t, await makeUser(t, { role: 'member', clients: [t.defaultClientId] }))
    // The verbs enforce roles (the nav only hides the section): reading is allowed, saving is not.
    expect(
      (await member.post(`/admin/clients/${t.defaultClientId}`, { name: 'X', timezone: 'UTC' })).status,
    ).toBe(403)
    expect(await zoneOf(t.defaultClientId)).toBeNull()
  })
})
