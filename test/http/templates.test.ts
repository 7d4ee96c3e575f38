import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'

const t = await createTestApp()
const acme = await t.client('Acme')
const globex = await t.client('Globex')
const acmeWriter = await t.key({ scopes: ['templates:write'], clientId: acme })
const acmeReader = await t.key({ scopes: ['campaigns:read'], clientId: acme })
const globexWriter = await t.key({ scopes: ['templates:write', 'contacts:write'], clientId: globex })
const acmeContacts = await t.key({ scopes: ['contacts:write'], clientId: acme })

const HTML = `<html><head><style>p { color: #333333; } .cta { font-weight: bold; }</style></head><body>
<p>Hello {{ contact.first_name | default: "there" }},</p>
<p>Your plan: {{ contact.custom.plan }}.</p>
{% if contact.company %}<p>At {{ contact.company }}</p>{% endif %}
<p><a class="cta" href="https://acme.example/offer?c={{ campaign.id }}">See the offer</a></p>
<p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>
</body></html>`

async function create(body: Record<string, unknown>, key = acmeWriter) {
  const res = await t.call('POST', '/api/v1/templates', { key, body })
  expect(res.status).toBe(200)
  return res.body.data as { id: string } & Record<string, unknown>
}

const preview = (id: string, body: unknown = {}, key = acmeReader) =>
  t.call('POST', `/api/v1/templates/${id}/preview`, { key, body })

describe('template CRUD', () => {
  test('create answers 200 with the template, owned by the key’s client', async () => {
    const d = await create({ name: 'Welcome', subject: 'Hi {{ contact.first_name }}', body_html: HTML })
    expect(d).toMatchObject({
      client_id: acme,
      name: 'Welcome',
      channel: 'email',
      subject: 'Hi {{ contact.first_name }}',
      body_html: HTML,
      body_text: null,
    })
    expect(d.created_at).toBe(d.updated_at)
  })

  const errors: {
    name: string
    key?: () => string
    path?: string
    body: unknown
    status: number
    code: string
    fields?: string[]
    message?: RegExp
  }[] = [
    {
      name: 'missing name',
      body: { subject: 'x' },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['name'],
    },
    {
      name: 'unknown member',
      body: { name: 'x', bodyHtml: '<p>' },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['bodyHtml'],
    },
    {
      name: 'unknown channel',
      body: { name: 'x', channel: 'fax' },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['channel'],
    },
    {
      name: 'subject over 998 characters',
      body: { name: 'x', subject: 's'.repeat(999) },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['subject'],
    },
    {
      name: 'body_html over 512 KiB',
      body: { name: 'x', body_html: 'h'.repeat(512 * 1024 + 1) },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['body_html'],
    },
    {
      name: 'unclosed output in body_html, with line and column',
      body: { name: 'x', body_html: '<p>Hello</p>\n<p>{{ contact.first_name </p>' },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['body_html'],
      message: /line 2, column 4/,
    },
    {
      name: 'unclosed tag',
      body: { name: 'x', body_text: 'a\n\n{% if contact.company %}x' },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['body_text'],
      message: /line 3, column 1.*not closed/,
    },
    {
      name: 'unknown filter',
      body: { name: 'x', subject: '{{ contact.email | shout }}' },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['subject'],
      message: /undefined filter: shout/,
    },
    {
      name: 'include (no file system)',
      body: { name: 'x', body_html: "{% include 'secrets' %}" },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['body_html'],
    },
    {
      name: 'every bad field at once',
      body: { name: 'x', subject: '{{ a', body_text: '{% endif %}' },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['subject', 'body_text'],
    },
    {
      name: 'sms with a subject and html',
      body: { name: 'x', channel: 'sms', subject: 'Hi', body_html: '<p>x</p>', body_text: 'x' },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['subject', 'body_html'],
    },
    {
      name: 'voice with html',
      body: { name: 'x', channel: 'voice', body_html: '<p>x</p>' },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['body_html'],
    },
    {
      name: 'a key without templates:write',
      key: () => acmeReader,
      body: { name: 'x' },
      status: 403,
      code: 'FORBIDDEN',
      message: /templates:write/,
    },
    {
      name: 'platform key without client_id',
      key: () => t.adminKey,
      body: { name: 'x' },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['client_id'],
    },
    { name: 'body that is not JSON', body: undefined, status: 400, code: 'INVALID_REQUEST' },
  ]
  for (const r of errors)
    test(`${r.name} → ${r.status}`, async () => {
      const res =
        r.body === undefined
          ? await t.call('POST', '/api/v1/templates', {
              key: acmeWriter,
              raw: '{nope',
              headers: { 'content-type': 'application/json' },
            })
          : await t.call('POST', r.path ?? '/api/v1/templates', {
              key: r.key?.() ?? acmeWriter,
              body: r.body,
            })
      expect(res.status).toBe(r.status)
      expect(res.body.error.code).toBe(r.code)
      const raw = res.body.error.details
      const details = (Array.isArray(raw) ? raw : []) as { field: string; message: string }[]
      if (r.fields) expect(details.map((d) => d.field).sort()).toEqual([...r.fields].sort())
      if (r.message)
        expect(`${res.body.error.message} ${details.map((d) => d.message).join(' ')}`).toMatch(r.message)
    })

  test('a syntax error carries line and column as members of its detail', async () => {
    const res = await t.call('POST', '/api/v1/templates', {
      key: acmeWriter,
      body: { name: 'x', body_html: 'one\ntwo {% if %}x{% endif %}' },
    })
    expect(res.body.error.details[0]).toMatchObject({ field: 'body_html', line: 2, column: 10 })
    expect(res.body.error.details[0].message).toStartWith('Liquid syntax error at line 2, column 10:')
  })

  test('a platform-wide key creates in the client it names', async () => {
    const res = await t.call('POST', `/api/v1/templates?client_id=${globex}`, {
      body: { name: 'Platform made' },
    })
    expect(res.status).toBe(200)
    expect(res.body.data.client_id).toBe(globex)
  })

  test('PATCH is partial, re-checks syntax and channel rules, and moves updated_at', async () => {
    const d = await create({ name: 'Patchable', subject: 'S', body_html: '<p>A</p>' })
    const renamed = await t.call('PATCH', `/api/v1/templates/${d.id}`, {
      key: acmeWriter,
      body: { name: 'Renamed' },
    })
    expect(renamed.body.data).toMatchObject({ name: 'Renamed', subject: 'S', body_html: '<p>A</p>' })
    expect(renamed.body.data.updated_at > d.updated_at!).toBe(true)

    const broken = await t.call('PATCH', `/api/v1/templates/${d.id}`, {
      key: acmeWriter,
      body: { body_html: '{% for x in y %}' },
    })
    expect(broken.status).toBe(422)
    expect(broken.body.error.details[0].field).toBe('body_html')

    const toSms = await t.call('PATCH', `/api/v1/templates/${d.id}`, {
      key: acmeWriter,
      body: { channel: 'sms' },
    })
    expect(toSms.status).toBe(422)
    const sms = await t.call('PATCH', `/api/v1/templates/${d.id}`, {
      key: acmeWriter,
      body: { channel: 'sms', subject: null, body_html: null, body_text: 'Hi {{ contact.first_name }}' },
    })
    expect(sms.body.data).toMatchObject({ channel: 'sms', subject: null, body_html: null, name: 'Renamed' })
    const unknown = await t.call('PATCH', `/api/v1/templates/${d.id}`, {
      key: acmeWriter,
      body: { nme: 'typo' },
    })
    expect(unknown.status).toBe(422)
  })

  test('DELETE removes it; then 404', async () => {
    const d = await create({ name: 'Doomed' })
    const del = await t.call('DELETE', `/api/v1/templates/${d.id}`, { key: acmeWriter })
    expect(del.body.data).toEqual({ id: d.id, client_id: acme, deleted: true })
    expect((await t.call('GET', `/api/v1/templates/${d.id}`, { key: acmeReader })).status).toBe(404)
    expect((await t.call('DELETE', `/api/v1/templates/${d.id}`, { key: acmeWriter })).status).toBe(404)
  })
})

describe('tenancy', () => {
  test('another tenant gets 404 on every route and never sees the template in lists', async () => {
    const d = await create({ name: 'Private', body_text: 'x' })
    for (const [method, path, body] of [
      ['GET', `/api/v1/templates/${d.id}`, undefined],
      ['PATCH', `/api/v1/templates/${d.id}`, { name: 'mine' }],
      ['DELETE', `/api/v1/templates/${d.id}`, undefined],
      ['POST', `/api/v1/templates/${d.id}/preview`, {}],
    ] as const) {
      const res = await t.call(method, path, { key: globexWriter, body })
      expect(res.status).toBe(404)
      expect(res.body.error.code).toBe('NOT_FOUND')
    }
    const list = await t.call('GET', `/api/v1/templates?limit=200&client_id=${acme}`, { key: globexWriter })
    expect(list.body.data.some((x: { id: string }) => x.id === d.id)).toBe(false)
    expect(list.body.data.every((x: { client_id: string }) => x.client_id === globex)).toBe(true)
  })

  test('lists paginate newest first with an exact total', async () => {
    const c = await t.client('Paged')
    const key = await t.key({ scopes: ['templates:write'], clientId: c })
    const ids: string[] = []
    for (let i = 0; i < 5; i++) ids.push((await create({ name: `T${i}` }, key)).id)
    const first = await t.call('GET', '/api/v1/templates?limit=3', { key })
    expect(first.body.data.map((x: { id: string }) => x.id)).toEqual(ids.slice(2).reverse())
    expect(first.body.pagination).toMatchObject({ total: 5, limit: 3, has_more: true })
    const second = await t.call(
      'GET',
      `/api/v1/templates?limit=3&cursor=${first.body.pagination.next_cursor}`,
      { key },
    )
    expect(second.body.data.map((x: { id: string }) => x.id)).toEqual(ids.slice(0, 2).reverse())
    expect(second.body.pagination.has_more).toBe(false)
  })
})

describe('POST /templates/{id}/preview', () => {
  test('renders with sample data, inlines CSS, derives the text part, lists missing variables', async () => {
    const d = await create({
      name: 'Offer',
      subject: 'Hi {{ contact.first_name }} — {{ campaign.name }}',
      body_html: HTML,
    })
    const res = await preview(d.id, { sample: { contact: { first_name: 'Ann' }, campaign: { id: 'c1' } } })
    expect(res.status).toBe(200)
    const p = res.body.data
    expect(p.subject).toBe('Hi Ann —')
    expect(p.body_html).toContain('<p style="color: #333333;">Hello Ann,</p>')
    expect(p.body_html).toContain('style="font-weight: bold;"')
    expect(p.body_html).not.toContain('<style>')
    expect(p.body_html).toContain('href="https://acme.example/offer?c=c1"')
    // a signed preview link (its page says so and changes nothing: test/http/tracking.test.ts)
    expect(p.body_html).toMatch(/href="http:\/\/localhost:8080\/u\/[\w-]+\.[\w-]+"/)
    expect(p.body_html).not.toContain('At ')
    expect(p.body_text).toContain('Hello Ann,')
    expect(p.body_text).toContain('See the offer [https://acme.example/offer?c=c1]')
    // printed and absent, no default: listed as written; guarded by if, or with default: not listed
    expect(p.missing_variables.sort()).toEqual(['campaign.name', 'contact.custom.plan'])
    expect(p.sms).toBeUndefined()
  })

  test('a sample contact takes the members of a contact input (custom_fields, first_name, …) as well as custom', async () => {
    const d = await create({
      name: 'Sample members',
      subject: '{{ contact.first_name }} {{ contact.last_name }} at {{ contact.company }}',
      body_text: 'plan={{ contact.custom.plan }} seats={{ contact.custom.seats }} phone={{ contact.phone }}',
    })
    const p = (
      await preview(d.id, {
        sample: {
          contact: {
            first_name: 'Ann',
            last_name: 'Lee',
            company: 'Acme, Inc.',
            phone: '+1 415 555 0100',
            custom_fields: { plan: 'team', seats: 5 },
            list_ids: [],
          },
        },
      })
    ).body.data
    expect(p.subject).toBe('Ann Lee at Acme, Inc.')
    expect(p.body_text).toBe('plan=team seats=5 phone=+1 415 555 0100')
    expect(p.missing_variables).toEqual([])
    // both spellings: `custom` wins member by member
    const both = (
      await preview(d.id, {
        sample: { contact: { custom_fields: { plan: 'team', seats: 5 }, custom: { plan: 'pro' } } },
      })
    ).body.data
    expect(both.body_text).toContain('plan=pro seats=5')
    // over a stored contact: the sample's custom_fields merge into the contact's custom fields
    const c = await t.call('POST', '/api/v1/contacts', {
      key: acmeContacts,
      body: { email: 'sam@acme.example', first_name: 'Sam', custom_fields: { plan: 'free', seats: 1 } },
    })
    const merged = (
      await preview(d.id, {
        contact_id: c.body.data.id,
        sample: { contact: { custom_fields: { plan: 'team' } } },
      })
    ).body.data
    expect(merged.body_text).toContain('plan=team seats=1')
    expect(merged.subject).toContain('Sam')
  })

  test('values are HTML-escaped in body_html, not in subject or text; | raw opts out', async () => {
    const d = await create({
      name: 'Escaping',
      subject: '{{ contact.first_name }}',
      body_html: '<p>{{ contact.first_name }}</p><div>{{ contact.custom.snippet | raw }}</div>',
      body_text: 'Hi {{ contact.first_name }}',
    })
    const p = (
      await preview(d.id, {
        sample: { contact: { first_name: 'Ann & <b>Bo</b>', custom: { snippet: '<i>ok</i>' } } },
      })
    ).body.data
    expect(p.body_html).toBe('<p>Ann &amp; &lt;b&gt;Bo&lt;/b&gt;</p><div><i>ok</i></div>')
    expect(p.subject).toBe('Ann & <b>Bo</b>')
    expect(p.body_text).toBe('Hi Ann & <b>Bo</b>')
  })

  test('line breaks in data never reach the subject header', async () => {
    const d = await create({ name: 'Header safety', subject: 'Hi {{ contact.first_name }}!' })
    const p = (await preview(d.id, { sample: { contact: { first_name: 'Ann\r\nBcc: x@evil.example' } } }))
      .body.data
    expect(p.subject).toBe('Hi Ann Bcc: x@evil.example!')
  })

  test('with contact_id: the stored contact, sample members on top (custom merges)', async () => {
    const contact = await t.call('POST', '/api/v1/contacts', {
      key: acmeContacts,
      body: {
        email: 'ann@customer.example',
        first_name: 'Ann',
        company: 'Initech',
        custom_fields: { plan: 'pro', city: 'Oslo' },
      },
    })
    expect(contact.status).toBe(200)
    const d = await create({
      name: 'Stored contact',
      body_text:
        '{{ contact.first_name }} {{ contact.email }} {{ contact.company }} {{ contact.custom.plan }} {{ contact.custom.city }} {{ client.name }}',
    })
    const p = (
      await preview(d.id, {
        contact_id: contact.body.data.id,
        sample: { contact: { custom: { city: 'Bergen' } } },
      })
    ).body.data
    expect(p.body_text).toBe('Ann ann@customer.example Initech pro Bergen Acme')
    expect(p.missing_variables).toEqual([])
  })

  const badPreviews: { name: string; body: () => unknown; field: string }[] = [
    {
      name: 'contact_id of another client',
      body: () => ({ contact_id: globexContact }),
      field: 'contact_id',
    },
    {
      name: 'contact_id that does not exist',
      body: () => ({ contact_id: '0193a1b2-c3d4-7000-8000-000000000000' }),
      field: 'contact_id',
    },
    { name: 'contact_id that is not an id', body: () => ({ contact_id: 'ann' }), field: 'contact_id' },
    { name: 'unknown member', body: () => ({ sample: { contatc: {} } }), field: 'sample.contatc' },
    {
      name: 'sample.contact not an object',
      body: () => ({ sample: { contact: 'ann' } }),
      field: 'sample.contact',
    },
  ]
  let globexContact = ''
  test.each(badPreviews)('$name → 422', async (row) => {
    if (!globexContact)
      globexContact = (
        await t.call('POST', '/api/v1/contacts', { key: globexWriter, body: { email: 'g@globex.example' } })
      ).body.data.id
    const d = await create({ name: 'Bad preview', body_text: 'x' })
    const res = await preview(d.id, row.body())
    expect(res.status).toBe(422)
    expect(res.body.error.details.map((x: { field: string }) => x.field)).toContain(row.field)
  })

  test('SMS: length and segments, GSM-7 and UCS-2', async () => {
    const d = await create({ name: 'SMS', channel: 'sms', body_text: '{{ contact.custom.text }}' })
    const cases = [
      { text: 'Hello Ann, your code is 1234', encoding: 'GSM-7', length: 28, segments: 1 },
      { text: 'x'.repeat(160), encoding: 'GSM-7', length: 160, segments: 1 },
      { text: 'x'.repeat(161), encoding: 'GSM-7', length: 161, segments: 2 },
      { text: `${'x'.repeat(158)}€`, encoding: 'GSM-7', length: 160, segments: 1 },
      { text: 'Hi Ann 😀', encoding: 'UCS-2', length: 9, segments: 1 },
      { text: 'ж'.repeat(71), encoding: 'UCS-2', length: 71, segments: 2 },
    ]
    for (const c of cases) {
      const p = (await preview(d.id, { sample: { contact: { custom: { text: c.text } } } })).body.data
      expect(p).toMatchObject({ channel: 'sms', subject: null, body_html: null, body_text: c.text })
      expect(p.sms).toEqual({ encoding: c.encoding, length: c.length, segments: c.segments })
    }
  })

  test('voice: body_text is the script, no html and no sms member', async () => {
    const d = await create({
      name: 'Call',
      channel: 'voice',
      body_text: 'Hello {{ contact.first_name | default: "friend" }}, this is Acme.',
    })
    const p = (await preview(d.id)).body.data
    expect(p).toMatchObject({
      channel: 'voice',
      subject: null,
      body_html: null,
      body_text: 'Hello friend, this is Acme.',
    })
    expect(p.sms).toBeUndefined()
  })

  test('an edit is visible in the next preview (the render cache follows updated_at)', async () => {
    const d = await create({ name: 'Cached', body_text: 'one' })
    expect((await preview(d.id)).body.data.body_text).toBe('one')
    await t.call('PATCH', `/api/v1/templates/${d.id}`, { key: acmeWriter, body: { body_text: 'two' } })
    expect((await preview(d.id)).body.data.body_text).toBe('two')
  })

  test('a template that runs away while rendering → 422 naming the member it was rendering, not a 500', async () => {
    const d = await create({ name: 'Runaway', body_text: '{% for i in (1..100000000) %}{{ i }}{% endfor %}' })
    const res = await preview(d.id)
    expect(res.status).toBe(422)
    expect(res.body.error.details[0].field).toBe('body_text')
  })
})
