import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { events } from '../../src/db/schema'
import { createTestApp } from '../helpers/app'
import { invalid, type Scenario, scenarios } from '../helpers/scenarios'

const t = await createTestApp()
const acme = await t.client('Acme')
const globex = await t.client('Globex')
const acmeWriter = await t.key({ scopes: ['contacts:write'], clientId: acme })
const globexReader = await t.key({ scopes: ['contacts:read'], clientId: globex })
const reader = await t.key({ scopes: ['contacts:read'], clientId: acme })

async function make(body: Record<string, unknown>, key = acmeWriter) {
  const r = await t.call('POST', '/api/v1/contacts', { key, body })
  expect(r.status).toBe(200)
  return r.body.data
}

describe('contacts', () => {
  test('create normalises the phone to E.164 and defaults status to subscribed', async () => {
    const c = await make({
      email: 'ann.lee@acme.io',
      first_name: 'Ann',
      last_name: 'Lee',
      company: 'Acme',
      phone: '+44 20 7946 0958',
      timezone: 'Europe/London',
      custom_fields: { plan: 'pro' },
    })
    expect(c).toMatchObject({
      client_id: acme,
      phone: '+442079460958',
      status: 'subscribed',
      timezone: 'Europe/London',
      custom_fields: { plan: 'pro' },
    })
  })

  const rows: Scenario[] = [
    invalid('bad email', { email: 'not-an-email' }, 'email'),
    invalid('missing email', { first_name: 'x' }, 'email'),
    invalid('unparseable phone', { email: 'p@acme.io', phone: 'call me maybe' }, 'phone'),
    invalid('unknown timezone', { email: 'tz@acme.io', timezone: 'Mars/Olympus' }, 'timezone'),
    invalid('status set only by Herald', { email: 's@acme.io', status: 'bounced' }, 'status'),
    invalid(
      'too many custom fields',
      {
        email: 'c@acme.io',
        custom_fields: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])),
      },
      'custom_fields',
    ),
    invalid(
      'custom key too long',
      { email: 'c@acme.io', custom_fields: { ['k'.repeat(65)]: 1 } },
      `custom_fields.${'k'.repeat(65)}`,
    ),
    invalid(
      'custom value too long',
      { email: 'c@acme.io', custom_fields: { bio: 'x'.repeat(2100) } },
      'custom_fields.bio',
    ),
    invalid('unknown member', { email: 'u@acme.io', nickname: 'x' }, 'nickname'),
    invalid(
      'list of another client',
      { email: 'l@acme.io', list_ids: ['01a207fe-5049-7476-b6cd-bf3b1f254347'] },
      'list_ids[0]',
    ),
    {
      name: 'read-only key',
      key: () => reader,
      body: { email: 'r@acme.io' },
      status: 403,
      code: 'FORBIDDEN',
    },
    invalid('platform key without client_id', { email: 'pk@acme.io' }, 'client_id', {
      key: () => t.adminKey,
    }),
    invalid('platform key with unknown client_id', { email: 'pk@acme.io' }, 'client_id', {
      key: () => t.adminKey,
      path: '/api/v1/contacts?client_id=01a207fe-5049-7476-b6cd-bf3b1f254347',
    }),
  ]
  scenarios(t, { method: 'POST', path: '/api/v1/contacts', key: () => acmeWriter }, rows, 'create: ')

  test('email is unique per client, case-insensitively: 409 with details.existing_id; another client may reuse it', async () => {
    const first = await make({ email: 'Dup@Acme.io' })
    const again = await t.call('POST', '/api/v1/contacts', {
      key: acmeWriter,
      body: { email: 'dup@ACME.IO' },
    })
    expect(again.status).toBe(409)
    expect(again.body.error.code).toBe('CONFLICT')
    expect(again.body.error.details.existing_id).toBe(first.id)
    const other = await t.call('POST', `/api/v1/contacts?client_id=${globex}`, {
      body: { email: 'dup@acme.io' },
    })
    expect(other.status).toBe(200)
  })

  test("tenant isolation: another client's contact is 404 for get, patch and delete, and absent from lists", async () => {
    const c = await make({ email: 'private@acme.io' })
    for (const [method, body] of [['GET'], ['PATCH', { first_name: 'x' }], ['DELETE']] as const)
      expect((await t.call(method, `/api/v1/contacts/${c.id}`, { key: globexReader, body })).status).toBe(
        method === 'GET' ? 404 : 403,
      )
    const globexAdmin = await t.key({ scopes: ['admin:*'], clientId: globex })
    for (const [method, body] of [['GET'], ['PATCH', { first_name: 'x' }], ['DELETE']] as const)
      expect((await t.call(method, `/api/v1/contacts/${c.id}`, { key: globexAdmin, body })).status).toBe(404)
    const list = await t.call('GET', '/api/v1/contacts?limit=200', { key: globexReader })
    expect(list.body.data.some((x: { id: string }) => x.id === c.id)).toBe(false)
    const search = await t.call('POST', '/api/v1/contacts/search', {
      key: globexReader,
      body: { query: 'private' },
    })
    expect(search.body.data).toEqual([])
  })

  test('PATCH is partial; custom_fields merge member by member and null removes a member', async () => {
    const c = await make({ email: 'merge@acme.io', first_name: 'M', custom_fields: { a: 1, b: 2 } })
    const r = await t.call('PATCH', `/api/v1/contacts/${c.id}`, {
      key: acmeWriter,
      body: { custom_fields: { b: null, c: 3 }, company: 'New Co' },
    })
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ first_name: 'M', company: 'New Co', custom_fields: { a: 1, c: 3 } })
    const dup = await make({ email: 'taken@acme.io' })
    const clash = await t.call('PATCH', `/api/v1/contacts/${c.id}`, {
      key: acmeWriter,
      body: { email: 'TAKEN@acme.io' },
    })
    expect(clash.status).toBe(409)
    expect(clash.body.error.details.existing_id).toBe(dup.id)
  })

  test('unsubscribing through PATCH records contact.unsubscribed in the same change', async () => {
    const c = await make({ email: 'bye@acme.io' })
    await t.call('PATCH', `/api/v1/contacts/${c.id}`, { key: acmeWriter, body: { status: 'unsubscribed' } })
    const evts = await t.ctx.db.select().from(events).where(eq(events.contactId, c.id))
    expect(evts.map((e) => e.type)).toEqual(['contact.unsubscribed'])
    expect(evts[0]!.data).toMatchObject({
      email: 'bye@acme.io',
      source: 'api',
      contact_id: `con_${c.id.replaceAll('-', '')}`,
    })
  })

  test('search: every term matches a word prefix of email, names, company or phone, case-insensitively', async () => {
    const s = await t.client('Search Co')
    const w = await t.key({ scopes: ['contacts:write'], clientId: s })
    const ann = await make(
      { email: 'ann.lee@acme.io', first_name: 'Ann', last_name: 'Lee', company: 'Acme Corp' },
      w,
    )
    const bob = await make(
      {
        email: 'bob_smith+news@globex.com',
        first_name: 'Bob',
        last_name: 'Smith',
        company: 'Globex',
        phone: '+14155550100',
      },
      w,
    )
    const find = async (query: string) =>
      (await t.call('POST', '/api/v1/contacts/search', { key: w, body: { query } })).body.data.map(
        (c: { id: string }) => c.id,
      )
    expect(await find('ann.lee@acme.io')).toEqual([ann.id])
    expect(await find('ANN')).toEqual([ann.id])
    expect(await find('acm')).toEqual([ann.id])
    expect(await find('smith news')).toEqual([bob.id])
    expect(await find('glob')).toEqual([bob.id])
    expect(await find('1415')).toEqual([bob.id])
    expect(await find('ann smith')).toEqual([])
    expect(await find('lee')).toEqual([ann.id])
    const bad = await t.call('POST', '/api/v1/contacts/search', { key: w, body: { query: '@@ --' } })
    expect(bad.status).toBe(422)
    expect(bad.body.error.details[0].field).toBe('query')
    const tooMany = await t.call('POST', '/api/v1/contacts/search', {
      key: w,
      body: { query: 'a', limit: 201 },
    })
    expect(tooMany.status).toBe(422)
  })

  test('search is paginated with a cursor in the body', async () => {
    const s = await t.client('Paging Co')
    const w = await t.key({ scopes: ['contacts:write'], clientId: s })
    for (let i = 0; i < 5; i++) await make({ email: `page${i}@paging.io` }, w)
    const first = await t.call('POST', '/api/v1/contacts/search', {
      key: w,
      body: { query: 'paging', limit: 2 },
    })
    expect(first.body.pagination).toMatchObject({ total: 5, has_more: true })
    const second = await t.call('POST', '/api/v1/contacts/search', {
      key: w,
      body: { query: 'paging', limit: 2, cursor: first.body.pagination.next_cursor },
    })
    expect(second.body.data).toHaveLength(2)
    expect(second.body.data[0].id < first.body.data[1].id).toBe(true)
    const last = await t.call('POST', '/api/v1/contacts/search', {
      key: w,
      body: { query: 'paging', limit: 2, cursor: second.body.pagination.next_cursor },
    })
    expect(last.body.data).toHaveLength(1)
    expect(last.body.pagination).toEqual({ total: 5, limit: 2, has_more: false, next_cursor: null })
  })

  test('DELETE erases personal data, keeps anonymised events, and updates list counts', async () => {
    const list = (
      await t.call('POST', '/api/v1/lists', {
        key: await t.key({ scopes: ['lists:write'], clientId: acme }),
        body: { name: 'Erasure' },
      })
    ).body.data
    const c = await make({ email: 'forget.me@acme.io', first_name: 'Forget', list_ids: [list.id] })
    await t.call('PATCH', `/api/v1/contacts/${c.id}`, { key: acmeWriter, body: { status: 'unsubscribed' } })
    expect((await t.call('GET', `/api/v1/lists/${list.id}`)).body.data.member_count).toBe(1)
    const del = await t.call('DELETE', `/api/v1/contacts/${c.id}`, { key: acmeWriter })
    expect(del.status).toBe(200)
    expect((await t.call('GET', `/api/v1/contacts/${c.id}`)).status).toBe(404)
    expect((await t.call('GET', `/api/v1/lists/${list.id}`)).body.data.member_count).toBe(0)
    const kept = await t.ctx.db.select().from(events).where(eq(events.contactId, c.id))
    expect(kept).toHaveLength(1)
    expect(JSON.stringify(kept[0]!.data)).not.toContain('forget.me')
    const search = await t.call('POST', '/api/v1/contacts/search', {
      key: acmeWriter,
      body: { query: 'forget' },
    })
    expect(search.body.data).toEqual([])
  })
})
