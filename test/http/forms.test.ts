import { describe, expect, test } from 'bun:test'
import { toPrefixedId } from '../../src/lib/ids'
import { createTestApp } from '../helpers/app'
import { invalid, scenarios } from '../helpers/scenarios'

// The forms resource: CRUD, its validation table, tenancy, scopes and the embed HTML.

const t = await createTestApp()
const acme = await t.client('Acme')
const globex = await t.client('Globex')
const writer = await t.key({ scopes: ['lists:write'], clientId: acme })
const reader = await t.key({ scopes: ['contacts:read'], clientId: acme })
const globexKey = await t.key({ scopes: ['lists:write'], clientId: globex })

const newList = async (name: string, key = writer) =>
  (await t.call('POST', '/api/v1/lists', { key, body: { name } })).body.data.id as string
const listId = await newList('Newsletter')
const otherList = await newList('Globex news', globexKey)
const smsTemplate = (
  await t.call('POST', '/api/v1/templates', {
    body: { name: 'SMS', channel: 'sms', body_text: 'Hi' },
    headers: {},
    key: await t.key({ scopes: ['templates:write'], clientId: acme }),
  })
).body.data?.id as string
const base = { name: 'Footer form', list_ids: [listId], consent_text: 'Yes, send me the newsletter.' }

describe('forms CRUD', () => {
  test('create with defaults: email always first, double opt-in, active', async () => {
    const res = await t.call('POST', '/api/v1/forms', {
      key: writer,
      body: { ...base, fields: ['first_name'] },
    })
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({
      client_id: acme,
      name: 'Footer form',
      list_ids: [listId],
      fields: ['email', 'first_name'],
      double_opt_in: true,
      confirmation_template_id: null,
      success_url: null,
      confirmed_url: null,
      status: 'active',
      url: `http://localhost:8080/f/${res.body.data.id}`,
    })
    expect(res.body.data.created_at).toMatch(/Z$/)
  })

  test('get, list, patch, embed and delete; a prefixed id works too', async () => {
    const id = (await t.call('POST', '/api/v1/forms', { key: writer, body: base })).body.data.id
    expect((await t.call('GET', `/api/v1/forms/${toPrefixedId('form', id)}`, { key: reader })).status).toBe(
      200,
    )
    const listed = await t.call('GET', '/api/v1/forms', { key: reader })
    expect(listed.body.data.map((f: { id: string }) => f.id)).toContain(id)
    const patched = await t.call('PATCH', `/api/v1/forms/${id}`, {
      key: writer,
      body: { status: 'disabled', double_opt_in: false, success_url: 'https://acme.example/thanks' },
    })
    expect(patched.body.data).toMatchObject({
      status: 'disabled',
      double_opt_in: false,
      success_url: 'https://acme.example/thanks',
      name: 'Footer form',
    })
    const embed = await t.call('GET', `/api/v1/forms/${id}/embed`, { key: reader })
    expect(embed.status).toBe(200)
    expect(embed.body.data.html).toContain(`action="http://localhost:8080/f/${id}"`)
    expect(embed.body.data.html).toContain('name="hp"')
    expect(embed.body.data.html).not.toContain('<script')
    expect((await t.call('DELETE', `/api/v1/forms/${id}`, { key: writer })).body.data).toEqual({
      id,
      deleted: true,
    })
    expect((await t.call('GET', `/api/v1/forms/${id}`, { key: reader })).status).toBe(404)
  })

  test("another client's form is 404; a read key cannot write", async () => {
    const id = (await t.call('POST', '/api/v1/forms', { key: writer, body: base })).body.data.id
    expect((await t.call('GET', `/api/v1/forms/${id}`, { key: globexKey })).status).toBe(404)
    expect(
      (await t.call('PATCH', `/api/v1/forms/${id}`, { key: globexKey, body: { name: 'x' } })).status,
    ).toBe(404)
    const denied = await t.call('POST', '/api/v1/forms', { key: reader, body: base })
    expect(denied.status).toBe(403)
    expect(denied.body.error.details.required_scope).toBe('lists:write')
  })
})

describe('forms validation', () => {
  scenarios(t, { method: 'POST', path: '/api/v1/forms', key: () => writer }, [
    invalid('no list', { ...base, list_ids: [] }, 'list_ids'),
    invalid("another client's list", { ...base, list_ids: [otherList] }, 'list_ids[0]'),
    invalid('an unknown list', { ...base, list_ids: [Bun.randomUUIDv7()] }, 'list_ids[0]'),
    invalid('a field that is not a contact field', { ...base, fields: ['email', 'age'] }, 'fields[1]'),
    invalid('a field twice', { ...base, fields: ['first_name', 'first_name'] }, 'fields[1]'),
    invalid('a non-http success_url', { ...base, success_url: 'ftp://acme.example/x' }, 'success_url'),
    invalid('a relative confirmed_url', { ...base, confirmed_url: '/thanks' }, 'confirmed_url'),
    invalid(
      'an unknown template',
      { ...base, confirmation_template_id: Bun.randomUUIDv7() },
      'confirmation_template_id',
    ),
    invalid('no consent text', { name: 'x', list_ids: [listId] }, 'consent_text'),
    invalid('a bad status', { ...base, status: 'paused' }, 'status'),
    invalid('an unknown member', { ...base, colour: 'red' }, 'colour'),
    {
      name: 'every failure at once',
      body: { ...base, list_ids: [otherList], fields: ['age'], success_url: 'ftp://x.example' },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['list_ids[0]', 'fields[0]', 'success_url'],
    },
  ])

  test('an SMS template cannot confirm an email subscription', async () => {
    if (!smsTemplate) return
    const res = await t.call('POST', '/api/v1/forms', {
      key: writer,
      body: { ...base, confirmation_template_id: smsTemplate },
    })
    expect(res.status).toBe(422)
  })

  test('custom fields are accepted as custom.<key>', async () => {
    const res = await t.call('POST', '/api/v1/forms', {
      key: writer,
      body: { ...base, fields: ['custom.favourite_colour', 'phone'] },
    })
    expect(res.body.data.fields).toEqual(['email', 'custom.favourite_colour', 'phone'])
  })
})
