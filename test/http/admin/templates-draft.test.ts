// The template editor's live preview of UNSAVED text (templates.render-draft through the portal):
// the htmx fragment renders what was typed with the same engines and variables as the saved
// preview (missing variables, SMS segments, the HTML in <iframe sandbox srcdoc> made inert), a
// Liquid syntax error is a 422 with its line and column next to the field (out of band), the
// no-JS "Preview" button re-renders the page with the draft, nothing is saved and the send
// path's compiled-template cache is not touched, a viewer may preview but not save, and a
// contact or template of another client is refused.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { compiledCacheSize } from '../../../src/services/templates/render'
import { createTestApp } from '../../helpers/app'
import { makeUser, PORTAL_ENV, signIn } from './portal-helpers'

// Sign-ins hash with argon2id; on a loaded 2-core machine a test can outlast the 5 s default.
setDefaultTimeout(60_000)

const t = await createTestApp({ env: PORTAL_ENV })
const key = await t.key({ scopes: ['admin:*'], clientId: t.defaultClientId })
const other = await t.client('Other')
const otherKey = await t.key({ scopes: ['admin:*'], clientId: other })
const HX = { 'HX-Request': 'true' }

async function api(method: string, path: string, body?: unknown, k = key) {
  const r = await t.call(method, path, { key: k, body })
  if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${r.text}`)
  return r.body.data
}

const srcdocOf = (html: string) =>
  /<iframe class="email-frame" sandbox title="[^"]*" srcdoc="([^"]*)"/.exec(html)?.[1] ?? null

describe('template editor: live preview of the draft', () => {
  test('renders the unsaved fields for the chosen contact; missing variables; nothing saved or cached', async () => {
    const b = await signIn(t)
    const contact = await api('POST', '/api/v1/contacts', { email: 'ann@example.com', first_name: 'Ann' })
    const tpl = await api('POST', '/api/v1/templates', {
      name: 'Saved',
      subject: 'Saved subject',
      body_html: '<p>Saved body</p>',
    })
    const cached = compiledCacheSize()
    const res = await b.post(
      `/admin/templates/${tpl.id}/draft-preview`,
      {
        name: 'Saved',
        channel: 'email',
        subject: 'Hi {{ contact.first_name }}',
        body_html:
          '<h2 style="color:red" onclick="x()">Draft for {{ contact.first_name }} {{ contact.custom.plan }}</h2><script>x()</script>',
        body_text: '',
        contact_id: contact.id,
      },
      HX,
    )
    expect(res.status).toBe(200)
    expect(res.text.trim().startsWith('<div id="template-preview"')).toBe(true)
    expect(res.text).toContain('Subject: <strong>Hi Ann</strong>')
    expect(res.text).toContain('<code>contact.custom.plan</code>')
    const srcdoc = srcdocOf(res.text)
    expect(srcdoc).toContain('&lt;h2&gt;Draft for Ann')
    expect(srcdoc).not.toContain('script')
    expect(srcdoc).not.toContain('onclick')
    expect(srcdoc).not.toContain('style')
    // Each field's slot is swapped (emptied: no error).
    expect(res.text).toContain('<small id="body_html-live" class="field-error" hx-swap-oob="true"></small>')
    // The draft is neither saved nor compiled into the send path's cache.
    expect(compiledCacheSize()).toBe(cached)
    const stored = await api('GET', `/api/v1/templates/${tpl.id}`)
    expect(stored.body_html).toBe('<p>Saved body</p>')

    // Every variable given: none listed as missing.
    const full = await b.post(
      `/admin/templates/${tpl.id}/draft-preview`,
      {
        channel: 'email',
        subject: 'S',
        body_html: '<p>{{ contact.first_name }}</p>',
        contact_id: contact.id,
      },
      HX,
    )
    expect(full.text).toContain('Every variable has a value.')
    // The editor's form posts here while typing, with the chooser included; no inline script.
    const editor = await b.get(`/admin/templates/${tpl.id}`)
    expect(editor.text).toContain(
      `hx-post="/admin/templates/${tpl.id}/draft-preview" hx-trigger="input changed delay:400ms" hx-include="#contact_id"`,
    )
    expect(editor.text).toContain(`formaction="/admin/templates/${tpl.id}/draft"`)
    expect(editor.text).not.toMatch(/<script(?![^>]*\bsrc=)/)
  })

  test('a Liquid syntax error is a 422 with line and column next to its field', async () => {
    const b = await signIn(t)
    const tpl = await api('POST', '/api/v1/templates', { name: 'Broken', subject: 'S', body_text: 'T' })
    const res = await b.post(
      `/admin/templates/${tpl.id}/draft-preview`,
      {
        channel: 'email',
        subject: 'S',
        body_html: '<p>ok</p>\n<p>{% if contact.first_name %}open',
        body_text: '',
      },
      HX,
    )
    expect(res.status).toBe(422)
    expect(res.text).toMatch(
      /<small id="body_html-live" class="field-error" hx-swap-oob="true">Liquid syntax error at line 2, column 4: [^<]+<\/small>/,
    )
    expect(res.text).toContain('<small id="subject-live" class="field-error" hx-swap-oob="true"></small>')
    expect(res.text).toContain('HTML body: Liquid syntax error at line 2, column 4')

    // Without JavaScript: the Preview button re-renders the page, the message next to the field
    // (aria-described) and the typed text kept.
    const page = await b.post(`/admin/templates/${tpl.id}/draft`, {
      name: 'Broken',
      channel: 'email',
      subject: 'S',
      body_html: '{{ contact.first_name | nosuchfilter }}',
    })
    expect(page.status).toBe(422)
    expect(page.text).toContain('aria-describedby="body_html-error"')
    expect(page.text).toMatch(
      /<small id="body_html-error" class="field-error">Liquid syntax error at line 1, column 1: [^<]*nosuchfilter/,
    )
    expect(page.text).toContain('{{ contact.first_name | nosuchfilter }}</textarea>')
    // A reload of that URL returns to the saved template.
    expect((await b.get(`/admin/templates/${tpl.id}/draft`)).location).toBe(`/admin/templates/${tpl.id}`)
  })

  test('SMS: length, segments and encoding of the draft; the no-JS Preview page shows them', async () => {
    const b = await signIn(t)
    const contact = await api('POST', '/api/v1/contacts', {
      email: 'bo@example.com',
      phone: '+14155550100',
      first_name: 'Bo',
    })
    const tpl = await api('POST', '/api/v1/templates', { name: 'Text', channel: 'sms', body_text: 'x' })
    const long = `Hi {{ contact.first_name }} ${'a'.repeat(160)}`
    const res = await b.post(
      `/admin/templates/${tpl.id}/draft-preview`,
      { channel: 'sms', subject: '', body_html: '', body_text: long, contact_id: contact.id },
      HX,
    )
    expect(res.status).toBe(200)
    // "Hi Bo " + 160 = 166 GSM-7 characters: two segments of 153.
    expect(res.text).toMatch(/SMS: <strong>166<\/strong> characters, <strong>2<\/strong> segment\(s\), GSM-7/)
    const unicode = await b.post(
      `/admin/templates/${tpl.id}/draft-preview`,
      { channel: 'sms', body_text: 'Hi {{ contact.first_name }} 🙂' },
      HX,
    )
    expect(unicode.text).toMatch(/segment\(s\), UCS-2/)
    expect(unicode.text).toContain('<code>contact.first_name</code>')

    // The same SMS rules as a save: an HTML body is refused next to its field.
    const html = await b.post(
      `/admin/templates/${tpl.id}/draft-preview`,
      { channel: 'sms', body_html: '<p>x</p>', body_text: 'x' },
      HX,
    )
    expect(html.status).toBe(422)
    expect(html.text).toMatch(/<small id="body_html-live"[^>]*>sms templates are plain text/)

    const page = await b.post(`/admin/templates/${tpl.id}/draft`, {
      name: 'Text',
      channel: 'sms',
      body_text: long,
      preview_contact_id: contact.id,
    })
    expect(page.status).toBe(200)
    expect(page.text).toMatch(/SMS: <strong>166<\/strong> characters, <strong>2<\/strong> segment\(s\)/)
    expect(page.text).toContain(`<input type="hidden" name="preview_contact_id" value="${contact.id}">`)
    expect((await api('GET', `/api/v1/templates/${tpl.id}`)).body_text).toBe('x')
  })

  test('a viewer may preview but not save; another client’s contact → 422, its template → 404', async () => {
    const tpl = await api('POST', '/api/v1/templates', { name: 'Roles', subject: 'S', body_text: 'T' })
    const theirs = await api('POST', '/api/v1/contacts', { email: 'theirs@example.com' }, otherKey)
    const theirTpl = await api('POST', '/api/v1/templates', { name: 'Theirs', body_text: 'T' }, otherKey)

    const viewer = await signIn(t, await makeUser(t, { role: 'viewer' }))
    const draft = { name: 'Roles', channel: 'email', subject: 'Viewer {{ contact.email }}', body_text: 'T' }
    const previewed = await viewer.post(`/admin/templates/${tpl.id}/draft-preview`, draft, HX)
    expect(previewed.status).toBe(200)
    expect(previewed.text).toContain('Subject: <strong>Viewer</strong>')
    expect((await viewer.post(`/admin/templates/${tpl.id}/draft`, draft)).status).toBe(200)
    expect((await viewer.post(`/admin/templates/${tpl.id}`, draft)).status).toBe(403)
    expect((await api('GET', `/api/v1/templates/${tpl.id}`)).subject).toBe('S')

    const owner = await signIn(t)
    const foreign = await owner.post(
      `/admin/templates/${tpl.id}/draft-preview`,
      { ...draft, contact_id: theirs.id },
      HX,
    )
    expect(foreign.status).toBe(422)
    expect(foreign.text).toContain('no such contact in the template&#39;s client')
    expect(foreign.text).not.toContain('theirs@example.com')

    const member = await signIn(t, await makeUser(t, { role: 'member', clients: [t.defaultClientId] }))
    expect((await member.post(`/admin/templates/${theirTpl.id}/draft-preview`, draft, HX)).status).toBe(404)
    expect((await member.post(`/admin/templates/${tpl.id}/draft-preview`, draft, HX)).status).toBe(200)
  })

  test('the same size limits as a save', async () => {
    const b = await signIn(t)
    const tpl = await api('POST', '/api/v1/templates', { name: 'Big', subject: 'S', body_text: 'T' })
    const res = await b.post(
      `/admin/templates/${tpl.id}/draft-preview`,
      { channel: 'email', subject: 'x'.repeat(999) },
      HX,
    )
    expect(res.status).toBe(422)
    expect(res.text).toMatch(/<small id="subject-live"[^>]*>[^<]+<\/small>/)
  })
})
