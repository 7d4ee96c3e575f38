// The sequences pages of the portal, driven in-process like a browser without JavaScript: the
// list, creating a draft (steps as JSON; each failing steps[i].member listed), its page with
// steps and per-step stats, activate (and its refusal), enroll a list, the runs, pause, edit
// (steps only while paused or a draft), archive behind a confirmation.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { adminApi } from '../../helpers/admin-api'
import { createTestApp } from '../../helpers/app'
import { idFrom, lazyOwner, PORTAL_ENV } from './portal-helpers'

setDefaultTimeout(60_000)

const t = await createTestApp({ env: PORTAL_ENV })
const key = await t.key({ scopes: ['admin:*'], clientId: t.defaultClientId })
const owner = lazyOwner(t)
const api = await adminApi(t, key)
const steps = JSON.stringify([
  { subject: 'Hello <b>{{ contact.first_name }}</b>', body_text: 'Hi', delay: 'PT1H' },
  { body_text: 'Again', delay: 'P2D' },
])

describe('sequences pages', () => {
  test('empty list, a refused create listing each failing step member, create, activate, enroll, runs, pause, edit, archive', async () => {
    const b = await owner()
    const empty = await b.get('/admin/sequences')
    expect(empty.status).toBe(200)
    expect(empty.text).toContain('No sequences')
    expect(empty.text).toContain('href="/admin/sequences/new"')
    const form = await b.get('/admin/sequences/new')
    expect(form.status).toBe(200)
    expect(form.text).toContain('name="steps"')

    const bad = await b.post('/admin/sequences', {
      name: 'Bad',
      steps: JSON.stringify([{ body_text: 'x', delay: 'soon' }]),
      stop_on_reply: 'on',
    })
    expect(bad.status).toBe(422)
    expect(bad.text).toContain('steps[0].subject: the first email step needs a subject')
    expect(bad.text).toContain('steps[0].delay: must be an ISO 8601 duration')
    const notJson = await b.post('/admin/sequences', { name: 'Bad', steps: '[{' })
    expect(notJson.status).toBe(422)
    expect(notJson.text).toContain('is not valid JSON')

    const created = await b.post('/admin/sequences', {
      name: 'Outreach <x>',
      steps,
      stop_on_reply: 'on',
      days: ['1', '2', '3'],
      start: '09:00',
      end: '17:00',
      daily_limit: '25',
    })
    expect(created.status).toBe(303)
    const id = idFrom(created.location)
    const s = await api('GET', `/api/v1/sequences/${id}`)
    expect(s).toMatchObject({
      name: 'Outreach <x>',
      status: 'draft',
      step_count: 2,
      settings: {
        stop_on_reply: true,
        daily_limit: 25,
        sending_window: { days: [1, 2, 3], start: '09:00', end: '17:00' },
      },
    })
    let page = await b.get(`/admin/sequences/${id}`)
    expect(page.text).toContain('Outreach &lt;x&gt;')
    expect(page.text).toContain('Hello &lt;b&gt;')
    expect(page.text).toContain('Re: (the thread)')
    expect(page.text).toContain('at most 25 a day per sender')
    expect(page.text).not.toContain('name="list_id"')

    expect((await b.post(`/admin/sequences/${id}/activate`)).status).toBe(303)
    const contact = await api('POST', '/api/v1/contacts', { email: 'lee@example.com', first_name: 'Lee' })
    const list = await api('POST', '/api/v1/lists', { name: 'Prospects' })
    await api('POST', `/api/v1/lists/${list.id}/contacts`, { contact_ids: [contact.id] })
    page = await b.get(`/admin/sequences/${id}`)
    expect(page.text).toContain('name="list_id"')
    const enrolled = await b.post(`/admin/sequences/${id}/enroll`, { list_id: list.id })
    expect(enrolled.status).toBe(303)
    page = await b.get(`/admin/sequences/${id}`)
    expect(page.text).toContain('Enrolled 1; skipped 0')
    expect(page.text).toContain(`href="/admin/contacts/${contact.id}"`)
    const none = await b.post(`/admin/sequences/${id}/enroll`, {})
    expect(none.status).toBe(303)
    expect((await b.get(`/admin/sequences/${id}`)).text).toContain('Nobody enrolled')

    // Active: the edit form has no steps; paused: it has.
    expect((await b.get(`/admin/sequences/${id}/edit`)).text).not.toContain('name="steps"')
    expect((await b.post(`/admin/sequences/${id}/pause`)).status).toBe(303)
    const edit = await b.get(`/admin/sequences/${id}/edit`)
    expect(edit.text).toContain('name="steps"')
    const saved = await b.post(`/admin/sequences/${id}/edit`, { name: 'Renamed', steps, daily_limit: '' })
    expect(saved.status).toBe(303)
    expect(await api('GET', `/api/v1/sequences/${id}`)).toMatchObject({
      name: 'Renamed',
      settings: { stop_on_reply: false, daily_limit: null, sending_window: null },
    })

    const confirm = await b.get(`/admin/sequences/${id}/archive`)
    expect(confirm.text).toContain('Archive the sequence')
    expect((await b.post(`/admin/sequences/${id}/archive`)).status).toBe(303)
    expect((await api('GET', `/api/v1/sequences/${id}/enrollments`))[0]).toMatchObject({ status: 'exited' })
    const list2 = await b.get('/admin/sequences?status=archived')
    expect(list2.text).toContain('Renamed')
    expect((await b.get('/admin/sequences?status=draft')).text).not.toContain('Renamed')
    // A status the list does not know lists everything (the address was typed, not a 422).
    const unknown = await b.get('/admin/sequences?status=running')
    expect(unknown.status).toBe(200)
    expect(unknown.text).toContain('Renamed')
  })

  test('a refused setting is named next to the settings by its path below settings', async () => {
    // fieldErrorsOf grouped details by top-level member and dropped the rest of the path: the
    // message next to the settings said "must be a time of day…" without naming which time.
    const b = await owner()
    const r = await b.post('/admin/sequences', {
      name: 'Window',
      steps,
      days: ['1'],
      start: '25:00',
      end: '17:00',
      daily_limit: '0',
    })
    expect(r.status).toBe(422)
    const field = /<small id="settings-error" class="field-error">([^<]*)<\/small>/.exec(r.text)?.[1]
    expect(field).toBe(
      'sending_window.start: must be a time of day HH:MM, 00:00 to 23:59; daily_limit: must be at least 1',
    )
    expect(r.text).toContain('aria-describedby="settings-error"')
  })

  test('activating a sequence with no steps says why', async () => {
    const b = await owner()
    const s = await api('POST', '/api/v1/sequences', { name: 'Empty' })
    const r = await b.post(`/admin/sequences/${s.id}/activate`)
    expect(r.status).toBe(303)
    expect((await b.get(`/admin/sequences/${s.id}`)).text).toContain(
      'Not activated: steps: a sequence needs at least one step',
    )
  })
})
