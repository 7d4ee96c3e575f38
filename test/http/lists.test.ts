import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { clients, contacts } from '../../src/db/schema'
import { inTransaction } from '../../src/db/transaction'
import { createTestApp } from '../helpers/app'
import { invalid, scenarios } from '../helpers/scenarios'

const t = await createTestApp()
const acme = await t.client('Acme')
const globex = await t.client('Globex')
const acmeKey = await t.key({ scopes: ['lists:write', 'contacts:write'], clientId: acme })
const globexKey = await t.key({ scopes: ['lists:write', 'contacts:write'], clientId: globex })

const contact = async (email: string, key = acmeKey) =>
  (await t.call('POST', '/api/v1/contacts', { key, body: { email } })).body.data.id as string
const newList = async (name: string, key = acmeKey) =>
  (await t.call('POST', '/api/v1/lists', { key, body: { name } })).body.data

describe('lists and membership', () => {
  test('add, re-add, remove keep member_count exact; members are listed', async () => {
    const list = await newList('Newsletter')
    expect(list.member_count).toBe(0)
    const ids = [await contact('a@acme.io'), await contact('b@acme.io'), await contact('c@acme.io')]
    const added = await t.call('POST', `/api/v1/lists/${list.id}/contacts`, {
      key: acmeKey,
      body: { contact_ids: ids },
    })
    expect(added.body.data).toMatchObject({ member_count: 3, added: 3 })
    const again = await t.call('POST', `/api/v1/lists/${list.id}/contacts`, {
      key: acmeKey,
      body: { contact_ids: [ids[0], ids[0]] },
    })
    expect(again.body.data).toMatchObject({ member_count: 3, added: 0 })
    const removed = await t.call('POST', `/api/v1/lists/${list.id}/contacts/remove`, {
      key: acmeKey,
      body: { contact_ids: [ids[1], ids[1]] },
    })
    expect(removed.body.data).toMatchObject({ member_count: 2, removed: 1 })
    const members = await t.call('GET', `/api/v1/lists/${list.id}/contacts`, { key: acmeKey })
    expect(members.body.data.map((c: { id: string }) => c.id).sort()).toEqual([ids[0], ids[2]].sort())
    expect(members.body.pagination.total).toBe(2)
    expect((await t.call('GET', `/api/v1/lists/${list.id}`, { key: acmeKey })).body.data.member_count).toBe(2)
  })

  test('adding 10,000 contacts in one call works and counts exactly', async () => {
    const list = await newList('Big')
    const now = Date.now()
    const ids: string[] = []
    const clientNo = (await t.ctx.db.select().from(clients).where(eq(clients.id, acme)))[0]!.no
    await inTransaction(t.ctx.sqlite, async () => {
      for (let i = 0; i < 10_000; i += 1_000) {
        const rows = Array.from({ length: 1_000 }, (_, k) => ({
          id: Bun.randomUUIDv7(),
          clientId: acme,
          clientNo,
          email: `bulk${i + k}@acme.io`,
          createdAt: now,
          updatedAt: now,
        }))
        ids.push(...rows.map((r) => r.id))
        await t.ctx.db.insert(contacts).values(rows)
      }
    })
    const res = await t.call('POST', `/api/v1/lists/${list.id}/contacts`, {
      key: acmeKey,
      body: { contact_ids: ids },
    })
    expect(res.status).toBe(200)
    expect(res.body.data.member_count).toBe(10_000)
    const over = await t.call('POST', `/api/v1/lists/${list.id}/contacts`, {
      key: acmeKey,
      body: { contact_ids: [...ids, ids[0]] },
    })
    expect(over.status).toBe(422)
    // PostgreSQL keeps a search index over every contact inserted: 10,000 take seconds there.
  }, 30_000)

  test('a contact of another client cannot be added (422 naming it); nothing is added', async () => {
    const list = await newList('Strict')
    const mine = await contact('mine@acme.io')
    const theirs = await contact('theirs@globex.io', globexKey)
    const res = await t.call('POST', `/api/v1/lists/${list.id}/contacts`, {
      key: acmeKey,
      body: { contact_ids: [mine, theirs] },
    })
    expect(res.status).toBe(422)
    expect(res.body.error.details).toEqual([{ field: 'contact_ids[1]', message: 'no such contact' }])
    expect((await t.call('GET', `/api/v1/lists/${list.id}`, { key: acmeKey })).body.data.member_count).toBe(0)
  })

  test("another client's list is 404 on every route", async () => {
    const list = await newList('Private')
    for (const [method, path, body] of [
      ['GET', `/api/v1/lists/${list.id}`],
      ['GET', `/api/v1/lists/${list.id}/contacts`],
      [
        'POST',
        `/api/v1/lists/${list.id}/contacts`,
        { contact_ids: ['01a207fe-5049-7476-b6cd-bf3b1f254347'] },
      ],
      [
        'POST',
        `/api/v1/lists/${list.id}/contacts/remove`,
        { contact_ids: ['01a207fe-5049-7476-b6cd-bf3b1f254347'] },
      ],
      ['DELETE', `/api/v1/lists/${list.id}`],
    ] as const) {
      const res = await t.call(method, path, { key: globexKey, body })
      expect(res.status).toBe(404)
    }
    const all = await t.call('GET', '/api/v1/lists?limit=200', { key: globexKey })
    expect(all.body.data.some((l: { id: string }) => l.id === list.id)).toBe(false)
  })

  test('validation: name required, bad contact ids', async () => {
    expect((await t.call('POST', '/api/v1/lists', { key: acmeKey, body: {} })).status).toBe(422)
    const list = await newList('V')
    const bad = await t.call('POST', `/api/v1/lists/${list.id}/contacts`, {
      key: acmeKey,
      body: { contact_ids: ['nope'] },
    })
    expect(bad.status).toBe(422)
    expect(bad.body.error.details[0].field).toBe('contact_ids[0]')
    const empty = await t.call('POST', `/api/v1/lists/${list.id}/contacts`, {
      key: acmeKey,
      body: { contact_ids: [] },
    })
    expect(empty.status).toBe(422)
  })

  test('deleting a list keeps its contacts', async () => {
    const list = await newList('Temp')
    const id = await contact('stays@acme.io')
    await t.call('POST', `/api/v1/lists/${list.id}/contacts`, { key: acmeKey, body: { contact_ids: [id] } })
    expect((await t.call('DELETE', `/api/v1/lists/${list.id}`, { key: acmeKey })).status).toBe(200)
    expect((await t.call('GET', `/api/v1/lists/${list.id}`, { key: acmeKey })).status).toBe(404)
    expect((await t.call('GET', `/api/v1/contacts/${id}`, { key: acmeKey })).status).toBe(200)
  })
})

// DESIGN §6: ids in contact_ids that the caller cannot see (unknown, erased or another client's)
// are 422 naming the member, on remove as on add; a visible contact that is not a member is fine.
describe('POST /lists/{id}/contacts/remove: references', async () => {
  const list = await newList('Refs')
  const mine = await contact('rm-mine@acme.io')
  const theirs = await contact('rm-theirs@globex.io', globexKey)
  const erased = await contact('rm-erased@acme.io')
  await t.call('POST', `/api/v1/lists/${list.id}/contacts`, {
    key: acmeKey,
    body: { contact_ids: [mine, erased] },
  })
  await t.call('DELETE', `/api/v1/contacts/${erased}`, { key: acmeKey })
  const path = `/api/v1/lists/${list.id}/contacts/remove`
  scenarios(t, { method: 'POST', path, key: () => acmeKey }, [
    invalid("another client's contact", { contact_ids: [theirs] }, 'contact_ids[0]', {
      message: 'no such contact',
    }),
    invalid(
      'an unknown contact after a visible one',
      { contact_ids: [mine, '01a20c27-37b2-7276-a460-000000000000'] },
      'contact_ids[1]',
    ),
    invalid('an erased contact', { contact_ids: [erased] }, 'contact_ids[0]'),
    {
      name: 'a visible contact that is not a member',
      body: { contact_ids: [await contact('rm-other@acme.io')] },
      status: 200,
    },
  ])
  test('a refused remove removed nobody', async () => {
    const res = await t.call('GET', `/api/v1/lists/${list.id}`, { key: acmeKey })
    expect(res.body.data.member_count).toBe(1)
  })
})
