import { describe, expect, test } from 'bun:test'
import { encodeCursor } from '../../src/lib/cursor'
import { toPrefixedId } from '../../src/lib/ids'
import { adminBody } from '../helpers/admin-api'
import { createTestApp } from '../helpers/app'
import { journeyTenant } from '../helpers/journey'
import { scenarios } from '../helpers/scenarios'

// A cursor pages the collection that issued it. The acceptance review found a /contacts cursor
// accepted by /campaigns (read as an id position, so the page silently started somewhere); now
// each cursor names its collection and another list refuses it with the 422 of a bad cursor.

const t = await createTestApp()
const acme = await t.client('Acme')
const key = await t.key({ scopes: ['admin:*'], clientId: acme })
const call = await adminBody(t, key)
const list = (await call('POST', '/api/v1/lists', { name: 'L' })).data
for (let i = 0; i < 3; i++) {
  await call('POST', '/api/v1/contacts', { email: `ann${i}@acme.io`, list_ids: [list.id] })
  await call('POST', '/api/v1/campaigns', { name: `C${i}` })
  await call('POST', '/api/v1/templates', { name: `T${i}` })
}
const next = async (path: string) => {
  const c = (await call('GET', path)).pagination.next_cursor as string
  expect(c).toEqual(expect.any(String))
  return encodeURIComponent(c)
}
const contactsCursor = await next('/api/v1/contacts?limit=1')
const campaignsCursor = await next('/api/v1/campaigns?limit=1')
const membersCursor = await next(`/api/v1/lists/${list.id}/contacts?limit=1`)
const searchCursor = encodeURIComponent(
  (await call('POST', '/api/v1/contacts/search', { query: 'ann', limit: 1 })).pagination.next_cursor,
)

describe('a cursor from another list → 422 on cursor', () => {
  scenarios(t, { method: 'GET', path: '/api/v1/campaigns', key: () => key }, [
    {
      name: 'contacts → campaigns',
      path: `/api/v1/campaigns?cursor=${contactsCursor}`,
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'cursor',
      message: 'is not a cursor this server issued for this list',
    },
    {
      name: 'campaigns → contacts',
      path: `/api/v1/contacts?cursor=${campaignsCursor}`,
      status: 422,
      field: 'cursor',
    },
    {
      name: 'campaigns → templates',
      path: `/api/v1/templates?cursor=${campaignsCursor}`,
      status: 422,
      field: 'cursor',
    },
    {
      name: 'list members → messages',
      path: `/api/v1/messages?cursor=${membersCursor}`,
      status: 422,
      field: 'cursor',
    },
    {
      name: 'campaigns → list members',
      path: `/api/v1/lists/${list.id}/contacts?cursor=${campaignsCursor}`,
      status: 422,
      field: 'cursor',
    },
    {
      name: 'search → a list',
      method: 'POST',
      path: '/api/v1/contacts/search',
      body: { query: 'ann', cursor: decodeURIComponent(contactsCursor) },
      status: 422,
      field: 'cursor',
    },
  ])
})

// Gap 4 of the s6 acceptance review: a /contacts/search cursor of query A continued query B
// (its position read in B's results). A cursor now carries a fingerprint of the query and
// filters it pages; the same list with another query refuses it. One row per way lists page:
// the search, the id-keyed lists (paginate), the seq-keyed child lists (cursorSeq + pageFrom).
const initech = await journeyTenant(t, 'Initech')
const journey = await initech.journey([
  { id: 't', type: 'trigger', trigger: 'manual', next: 's' },
  { id: 's', type: 'send', template_id: initech.templates.welcome.id, next: 'w' },
  { id: 'w', type: 'wait', duration: 'P1D' },
])
await initech.enroll(journey, [
  await initech.contact('a@initech.com'),
  await initech.contact('b@initech.com'),
])
const enrollmentsCursor = encodeURIComponent(
  (await t.call('GET', `/api/v1/journeys/${journey}/enrollments?limit=1`, { key: initech.key })).body
    .pagination.next_cursor,
)
const OTHER_QUERY =
  'was issued for another query: send it with the same filters as the request that returned it, or start over without a cursor'

describe('a cursor of another query on the same list → 422 on cursor', () => {
  scenarios(t, { method: 'GET', path: '/api/v1/campaigns', key: () => key }, [
    {
      name: 'search "ann" → search "acme"',
      method: 'POST',
      path: '/api/v1/contacts/search',
      body: { query: 'acme', cursor: decodeURIComponent(searchCursor) },
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'cursor',
      message: OTHER_QUERY,
    },
    {
      name: 'campaigns → campaigns?status=draft',
      path: `/api/v1/campaigns?status=draft&cursor=${campaignsCursor}`,
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'cursor',
      message: OTHER_QUERY,
    },
    {
      name: 'journey enrollments → enrollments?status=active',
      path: `/api/v1/journeys/${journey}/enrollments?status=active&cursor=${enrollmentsCursor}`,
      key: () => initech.key,
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'cursor',
      message: OTHER_QUERY,
    },
  ])
})

describe('a cursor on its own list still pages', () => {
  test('search: the same terms in another case and spacing are the same query', async () => {
    const page = await call('POST', '/api/v1/contacts/search', {
      query: '  ANN ',
      limit: 1,
      cursor: decodeURIComponent(searchCursor),
    })
    expect(page.data).toHaveLength(1)
  })
  test('journey enrollments with their own cursor', async () => {
    const page = (
      await t.call('GET', `/api/v1/journeys/${journey}/enrollments?limit=1&cursor=${enrollmentsCursor}`, {
        key: initech.key,
      })
    ).body
    expect(page.data).toHaveLength(1)
    expect(page.pagination.has_more).toBe(false)
  })

  for (const [path, cursor] of [
    ['/api/v1/contacts?limit=1', contactsCursor],
    ['/api/v1/campaigns?limit=1', campaignsCursor],
    [`/api/v1/lists/${list.id}/contacts?limit=1`, membersCursor],
  ] as const)
    test(path, async () => {
      const page = await call('GET', `${path}&cursor=${cursor}`)
      expect(page.data).toHaveLength(1)
      expect(page.pagination.has_more).toBe(true)
    })
  test('client_id is not part of the query: named on one page, left out or written as cli_… on the next', async () => {
    const first = await call('GET', `/api/v1/contacts?client_id=${acme}&limit=1`)
    const cursor = encodeURIComponent(first.pagination.next_cursor)
    for (const path of [
      `/api/v1/contacts?limit=1&cursor=${cursor}`,
      `/api/v1/contacts?client_id=${acme}&limit=1&cursor=${cursor}`,
      `/api/v1/contacts?client_id=${toPrefixedId('client', acme)}&limit=1&cursor=${cursor}`,
    ]) {
      const page = await call('GET', path)
      expect({ path, second: page.data[0]?.id }).toEqual({ path, second: expect.any(String) })
      expect(page.data[0].id).not.toBe(first.data[0].id)
    }
  })
  test('search with its own cursor', async () => {
    const page = await call('POST', '/api/v1/contacts/search', {
      query: 'ann',
      limit: 1,
      cursor: decodeURIComponent(searchCursor),
    })
    expect(page.data).toHaveLength(1)
  })
  test('a cursor issued before cursors named their collection is still read', async () => {
    const first = (await call('GET', '/api/v1/campaigns?limit=1')).data[0].id
    const legacy = encodeCursor(t.ctx.secretKey, first)
    const page = await call('GET', `/api/v1/campaigns?limit=1&cursor=${encodeURIComponent(legacy)}`)
    expect(page.data[0].id < first).toBe(true)
  })
})
