// The content and sending pages of the portal (dashboard, templates, campaigns, messages,
// replies), driven in-process like a browser without JavaScript: status, content, per-field
// 422s, the launch confirmation with the audience size, progress and stats, the captured
// outbox, and the roles (a viewer cannot change anything; a member sees only its clients').
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createCaptureProvider } from '../../../src/channels/capture'
import { createSendWorker } from '../../../src/queue/worker'
import { sendDeps } from '../../../src/sending'
import { adminApi } from '../../helpers/admin-api'
import { createTestApp } from '../../helpers/app'
import { allChannels } from '../../helpers/sender'
import { idFrom, lazyOwner, makeUser, PORTAL_ENV, signIn } from './portal-helpers'

// Sign-ins hash with argon2id; on a loaded 2-core machine a test can outlast the 5 s default.
setDefaultTimeout(60_000)

const t = await createTestApp({ env: PORTAL_ENV })
const worker = createSendWorker(t.ctx, sendDeps, { providers: allChannels(createCaptureProvider()) })
const key = await t.key({ scopes: ['admin:*'], clientId: t.defaultClientId })
const other = await t.client('Other')
const otherKey = await t.key({ scopes: ['admin:*'], clientId: other })

const owner = lazyOwner(t)

const api = await adminApi(t, key)

describe('templates pages', () => {
  test('empty state, create, 422 next to the field, preview for a contact with missing variables, SMS info, delete behind a confirmation', async () => {
    const b = await owner()
    const empty = await b.get('/admin/templates')
    expect(empty.status).toBe(200)
    expect(empty.text).toContain('No templates yet')

    const bad = await b.post('/admin/templates', { name: '', channel: 'email' })
    expect(bad.status).toBe(422)
    expect(bad.text).toContain('id="name-error"')

    const contact = await api('POST', '/api/v1/contacts', { email: 'pat@example.com', first_name: 'Pat' })
    const created = await b.post('/admin/templates', {
      name: 'Welcome',
      channel: 'email',
      subject: 'Hi {{ contact.first_name }}',
      body_html:
        '<p style="color:red" onclick="x()">Hello {{ contact.first_name }} {{ contact.custom.plan }}</p><script>x()</script>',
      body_text: 'Hello {{ contact.first_name }}',
    })
    expect(created.status).toBe(303)
    const id = idFrom(created.location)
    const page = await b.get(`/admin/templates/${id}?contact_id=${contact.id}`)
    expect(page.status).toBe(200)
    expect(page.text).toContain('Subject: <strong>Hi Pat</strong>')
    expect(page.text).toContain('<code>contact.custom.plan</code>')
    // The HTML only in a sandboxed srcdoc, escaped, without script, handlers or inline style.
    const frame = /<iframe class="email-frame" sandbox title="[^"]*" srcdoc="([^"]*)"/.exec(page.text)
    expect(frame).not.toBeNull()
    expect(frame![1]).toContain('&lt;p&gt;Hello Pat')
    expect(frame![1]).not.toContain('script')
    expect(frame![1]).not.toContain('onclick')
    expect(frame![1]).not.toContain('style')

    // The preview fragment for the contact chooser.
    const fragment = await b.get(`/admin/templates/${id}/preview?contact_id=${contact.id}`, {
      'HX-Request': 'true',
    })
    expect(fragment.status).toBe(200)
    expect(fragment.text.trim().startsWith('<div id="template-preview"')).toBe(true)

    const sms = await b.post('/admin/templates', {
      name: 'Text',
      channel: 'sms',
      body_text: 'Hi {{ contact.first_name }} €',
    })
    const smsPage = await b.get(`/admin/templates/${idFrom(sms.location)}?contact_id=${contact.id}`)
    expect(smsPage.text).toMatch(
      /SMS: <strong>9<\/strong> characters, <strong>1<\/strong> segment\(s\), GSM-7/,
    )

    const saved = await b.post(`/admin/templates/${id}`, {
      name: 'Welcome 2',
      channel: 'email',
      subject: 'Yo',
    })
    expect(saved.status).toBe(303)
    expect((await b.get(`/admin/templates/${id}`)).text).toContain('Saved the template “Welcome 2”')

    const confirm = await b.get(`/admin/templates/${id}/delete`)
    expect(confirm.text).toContain(`action="/admin/templates/${id}/delete"`)
    expect((await b.post(`/admin/templates/${id}/delete`)).location).toBe('/admin/templates')
    expect((await b.get(`/admin/templates/${id}`)).status).toBe(404)
  })
})

describe('campaigns, messages and the dashboard', () => {
  test('create with 422s, launch confirmation with the audience size, progress, sent, stats, captured message, filters', async () => {
    const b = await owner()
    const list = await api('POST', '/api/v1/lists', { name: 'Buyers' })
    for (const i of [1, 2, 3])
      await api('POST', '/api/v1/contacts', {
        email: `buyer${i}@example.com`,
        first_name: `B${i}`,
        list_ids: [list.id],
      })
    const tpl = await api('POST', '/api/v1/templates', {
      name: 'Promo',
      subject: 'Deal for {{ contact.first_name }}',
      body_html: '<p>Hi {{ contact.first_name }}</p>',
      body_text: 'Hi {{ contact.first_name }}',
    })

    const form = await b.get('/admin/campaigns/new')
    expect(form.status).toBe(200)
    expect(form.text).toContain(`value="list:${list.id}"`)
    const bad = await b.post('/admin/campaigns', { name: '', audience: `list:${list.id}` })
    expect(bad.status).toBe(422)
    expect(bad.text).toContain('id="name-error"')

    const created = await b.post('/admin/campaigns', {
      name: 'Spring sale',
      audience: `list:${list.id}`,
      channel: 'email',
      template_id: tpl.id,
    })
    expect(created.status).toBe(303)
    const id = idFrom(created.location)
    const draft = await b.get(`/admin/campaigns/${id}`)
    expect(draft.text).toContain(`href="/admin/campaigns/${id}/launch"`)

    const confirm = await b.get(`/admin/campaigns/${id}/launch`)
    expect(confirm.status).toBe(200)
    expect(confirm.text).toContain('<strong id="audience-size">3</strong>')
    expect(confirm.text).toContain('name="confirm" value="true"')
    // Without confirm=true the verb refuses, and the page says why.
    const refused = await b.post(`/admin/campaigns/${id}/launch`, {})
    expect(refused.location).toBe(`/admin/campaigns/${id}`)
    expect((await b.get(`/admin/campaigns/${id}`)).text).toContain('confirm')

    const launched = await b.post(`/admin/campaigns/${id}/launch`, { confirm: 'true' })
    expect(launched.status).toBe(303)
    const sending = await b.get(`/admin/campaigns/${id}`)
    expect(sending.text).toContain('Launched: sending to 3 recipient(s).')
    // While it sends, the progress polls itself.
    expect(sending.text).toContain(`hx-get="/admin/campaigns/${id}/progress"`)
    const dash = await b.get('/admin')
    expect(dash.text).toContain('Running campaigns')
    expect(dash.text).toContain(`href="/admin/campaigns/${id}"`)
    expect(dash.text).toMatch(/Queue depth: <strong>3<\/strong>/)
    expect(dash.text).toContain('hx-get="/admin/dashboard/running"')
    const running = await b.get('/admin/dashboard/running', { 'HX-Request': 'true' })
    expect(running.text.trim().startsWith('<section id="running-campaigns"')).toBe(true)
    expect((await b.get('/admin/dashboard/nope')).status).toBe(404)

    await worker.drain()
    const progress = await b.get(`/admin/campaigns/${id}/progress`, { 'HX-Request': 'true' })
    expect(progress.text).toContain('<strong id="campaign-status">sent</strong>')
    expect(progress.text).not.toContain('hx-trigger') // done: it stops polling
    const sent = await b.get(`/admin/campaigns/${id}`)
    expect(sent.text).toContain(
      '<title id="campaign-stats-title">Results of Spring sale: Sent: 3, Delivered: 3',
    )

    // The captured messages: list, filters, and one message's parts.
    const outbox = await b.get(`/admin/messages?campaign_id=${id}`)
    expect(outbox.text).toContain('Deal for B1')
    expect((outbox.text.match(/href="\/admin\/messages\/[^"]+"/g) ?? []).length).toBe(3)
    const byRecipient = await b.get('/admin/messages?to=buyer2')
    expect(byRecipient.text).toContain('buyer2@example.com')
    expect(byRecipient.text).not.toContain('buyer1@example.com')
    expect((await b.get('/admin/messages?channel=sms')).text).toContain('No message matches these filters')
    const messageId = /href="\/admin\/messages\/([^"]+)"/.exec(byRecipient.text)![1]!
    const message = await b.get(`/admin/messages/${messageId}`)
    expect(message.status).toBe(200)
    expect(message.text).toContain('Deal for B2')
    expect(message.text).toMatch(
      /<iframe class="email-frame" sandbox title="The message as HTML" srcdoc="[^"]*Hi B2/,
    )
    expect(message.text).toContain('id="headers-part"')
    expect(message.text).toContain('Content-Type: text/html; charset=utf-8')

    // The dashboard: the 30-day chart with its table, no running campaign left.
    const after = await b.get('/admin')
    expect(after.text).toContain('<title id="activity-title">')
    expect(after.text).toMatch(/Sends \(3\)/)
    expect(after.text).toContain('No campaign is sending.')
    expect(after.text).toContain('href="/admin/domains"')
    expect(after.text).toContain('href="/admin/webhooks"')

    // The list's status filter and search.
    expect((await b.get('/admin/campaigns?status=sent')).text).toContain('Spring sale')
    expect((await b.get('/admin/campaigns?status=draft')).text).toContain('No campaign matches these filters')
    expect((await b.get('/admin/campaigns?search=spring')).text).toContain('Spring sale')
  })

  test('pause, resume and cancel behind a confirmation', async () => {
    const b = await owner()
    const list = await api('POST', '/api/v1/lists', { name: 'Few' })
    await api('POST', '/api/v1/contacts', { email: 'few@example.com', list_ids: [list.id] })
    const c = await api('POST', '/api/v1/campaigns', {
      name: 'Later',
      list_id: list.id,
      subject: 'S',
      body_text: 'T',
    })
    await api('POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
    expect((await b.post(`/admin/campaigns/${c.id}/pause`)).location).toBe(`/admin/campaigns/${c.id}`)
    const paused = await b.get(`/admin/campaigns/${c.id}`)
    expect(paused.text).toContain('Paused.')
    expect(paused.text).toContain(`action="/admin/campaigns/${c.id}/resume"`)
    await b.post(`/admin/campaigns/${c.id}/resume`)
    expect((await api('GET', `/api/v1/campaigns/${c.id}`)).status).toBe('sending')
    expect((await b.get(`/admin/campaigns/${c.id}/cancel`)).text).toContain('Cancel “Later”?')
    await b.post(`/admin/campaigns/${c.id}/cancel`)
    expect((await api('GET', `/api/v1/campaigns/${c.id}`)).status).toBe('cancelled')
    // A refused change is a flash, not an error page.
    await b.post(`/admin/campaigns/${c.id}/pause`)
    expect((await b.get(`/admin/campaigns/${c.id}`)).text).toContain('flash-error')
    await worker.drain()
  })

  test('the dashboard names a domain that is not verified, with a link to act on it', async () => {
    const b = await owner()
    const domain = await api('POST', '/api/v1/domains', { domain: 'mail.example.org' })
    const dash = await b.get('/admin')
    expect(dash.text).toContain(`<a href="/admin/domains/${domain.id}">mail.example.org</a> — pending`)
  })

  test('replies inbox: empty state', async () => {
    const b = await owner()
    const inbox = await b.get('/admin/replies')
    expect(inbox.status).toBe(200)
    expect(inbox.text).toContain('No replies yet')
  })
})

describe('roles', () => {
  test('a viewer reads but cannot create, launch or delete; a member of another client gets 404 for these records', async () => {
    const list = await api('POST', '/api/v1/lists', { name: 'Roles' })
    const c = await api('POST', '/api/v1/campaigns', {
      name: 'Roles',
      list_id: list.id,
      subject: 'S',
      body_text: 'T',
    })
    const tpl = await api('POST', '/api/v1/templates', { name: 'Roles', subject: 'S', body_text: 'T' })
    const viewer = await signIn(t, await makeUser(t, { role: 'viewer' }))
    for (const path of [
      '/admin',
      '/admin/templates',
      `/admin/templates/${tpl.id}`,
      '/admin/campaigns',
      `/admin/campaigns/${c.id}`,
      '/admin/messages',
      '/admin/replies',
    ])
      expect(`${path} ${(await viewer.get(path)).status}`).toBe(`${path} 200`)
    expect((await viewer.post('/admin/templates', { name: 'x' })).status).toBe(403)
    expect((await viewer.post(`/admin/templates/${tpl.id}/delete`)).status).toBe(403)
    expect((await viewer.post('/admin/campaigns', { name: 'x', audience: `list:${list.id}` })).status).toBe(
      403,
    )
    expect((await viewer.post(`/admin/campaigns/${c.id}/launch`, { confirm: 'true' })).status).toBe(403)
    expect((await api('GET', `/api/v1/campaigns/${c.id}`)).status).toBe('draft')

    const otherTpl = await api(
      'POST',
      '/api/v1/templates',
      { name: 'Theirs', subject: 'S', body_text: 'T' },
      otherKey,
    )
    const member = await signIn(t, await makeUser(t, { role: 'member', clients: [other] }))
    expect((await member.get(`/admin/campaigns/${c.id}`)).status).toBe(404)
    expect((await member.get(`/admin/campaigns/${c.id}/launch`)).status).toBe(404)
    expect((await member.get(`/admin/templates/${tpl.id}`)).status).toBe(404)
    expect((await member.get(`/admin/templates/${otherTpl.id}`)).status).toBe(200)
    expect((await member.get('/admin/campaigns')).text).not.toContain('>Roles<')
  })
})
