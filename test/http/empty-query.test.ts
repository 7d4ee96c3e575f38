import { expect, test } from 'bun:test'
import { Type } from '@sinclair/typebox'
import { route } from '../../src/http/rest/define-operation'
import { createPipeline, runOperation } from '../../src/http/rest/pipeline'
import { defineVerb } from '../../src/services/verbs/define'
import { pageQueryMembers, strict } from '../../src/services/verbs/schemas'
import { createTestApp } from '../helpers/app'
import { journeyTenant, testClock } from '../helpers/journey'
import { detailFields } from '../helpers/scenarios'

// Clients build `?limit=20&cursor=` for a first page and send `search=` from an empty search box:
// an empty value of an optional query parameter is the same as leaving it out (coerceQuery,
// src/lib/validate.ts), on every list. A value that is not empty is still checked as before.

// A clock that stands still: answers that carry the time (computed_at) compare equal.
const t = await createTestApp({ clock: testClock() })
const acme = await journeyTenant(t, 'Acme')
const ann = await acme.contact('ann@example.com')
const bob = await acme.contact('bob@example.com')
await acme.call('POST', `/api/v1/lists/${acme.list.id}/contacts`, { contact_ids: [ann, bob] })
const campaign = await acme.call('POST', '/api/v1/campaigns', {
  name: 'Spring',
  template_id: acme.templates.welcome.id,
  list_id: acme.list.id,
})
const journey = await acme.journey([{ id: 't', type: 'trigger', trigger: 'manual' }])
await acme.enroll(journey, [ann, bob])
const sequence = await acme.call('POST', '/api/v1/sequences', {
  name: 'S',
  steps: [{ subject: 'Hi', body_text: 'Hi' }],
})
await acme.call('POST', '/api/v1/messages', { contact_id: ann, template_id: acme.templates.nudge.id })
await acme.call('POST', '/api/v1/messages', { contact_id: bob, template_id: acme.templates.nudge.id })

// [list path, the empty query to add]; each answers the same first page as the bare path.
const rows: [path: string, query: string][] = [
  ['/api/v1/contacts', 'limit=20&cursor='],
  ['/api/v1/contacts', 'cursor=&client_id='],
  ['/api/v1/contacts', 'limit='],
  ['/api/v1/campaigns', 'search='],
  ['/api/v1/campaigns', 'limit=20&cursor=&search=&status='],
  ['/api/v1/templates', 'cursor=&limit='],
  [`/api/v1/lists/${acme.list.id}/contacts`, 'cursor='],
  [`/api/v1/journeys/${journey}/enrollments`, 'cursor=&status=&contact_id='],
  [`/api/v1/sequences/${sequence.id}/enrollments`, 'status=&contact_id=&limit='],
  ['/api/v1/journeys', 'status=&cursor='],
  ['/api/v1/messages', 'limit=20&cursor=&status=&contact_id=&campaign_id=&journey_id=&sequence_id='],
  ['/api/v1/replies', 'campaign_id=&contact_id=&cursor='],
  ['/api/v1/deliverability/alerts', 'active=&cursor='],
  ['/api/v1/analytics/funnel', 'channel=&campaign_id=&from=&to='],
]

test.each(rows)('GET %s?%s answers the first page, as without the empty parameters', async (path, query) => {
  const bare = await t.call('GET', path, { key: acme.key })
  const empty = await t.call('GET', `${path}?${query}`, { key: acme.key })
  expect(bare.status).toBe(200)
  expect(empty.status).toBe(200)
  // The same records (a `limit=20` row differs from the bare path only in pagination.limit).
  expect(empty.body.data).toEqual(bare.body.data)
  expect(empty.body.pagination?.next_cursor).toEqual(bare.body.pagination?.next_cursor)
})

test('the lists answered are not empty (the comparison above compares records)', async () => {
  for (const path of ['/api/v1/contacts', '/api/v1/campaigns', '/api/v1/templates', '/api/v1/messages'])
    expect((await t.call('GET', `${path}?cursor=`, { key: acme.key })).body.data.length).toBeGreaterThan(0)
  const enrolled = await t.call('GET', `/api/v1/journeys/${journey}/enrollments?cursor=&status=`, {
    key: acme.key,
  })
  expect(enrolled.body.data).toHaveLength(2)
  const found = await t.call('GET', '/api/v1/campaigns?search=', { key: acme.key })
  expect(found.body.data.map((c: { id: string }) => c.id)).toEqual([campaign.id])
})

test('an empty limit is the default limit', async () => {
  const r = await t.call('GET', '/api/v1/contacts?limit=', { key: acme.key })
  expect(r.body.pagination.limit).toBe(50)
})

// Only the empty string is absent: a value that is there is still checked.
const refused: [path: string, field: string][] = [
  ['/api/v1/contacts?cursor=%20', 'cursor'],
  ['/api/v1/contacts?limit=0', 'limit'],
  ['/api/v1/contacts?typo=', 'typo'],
  ['/api/v1/campaigns?status=nope&search=', 'status'],
  ['/api/v1/messages?contact_id=nope&cursor=', 'contact_id'],
  [`/api/v1/journeys/${journey}/enrollments?status=%20`, 'status'],
]

test.each(refused)('GET %s → 422 naming %s', async (path, field) => {
  const r = await t.call('GET', path, { key: acme.key })
  expect(r.status).toBe(422)
  expect(r.body.error.code).toBe('VALIDATION_FAILED')
  expect(detailFields(r.body)).toEqual([field])
})

// No operation's schema requires a query parameter today (analytics requires client_id of a
// platform-wide key in its service, tested below); one that did would keep it required: `q=` is
// `q` missing, a 422 naming it. Shown through the real pipeline.
const seen: unknown[] = []
const lookup = route(
  defineVerb({
    name: 'things.lookup',
    scope: 'public',
    input: Type.Object({ q: Type.String(), ...pageQueryMembers }, strict),
    mutates: false,
    run: (_ctx, input) => {
      seen.push(input)
      return { ok: true }
    },
  }),
  {
    id: 'lookupThings',
    method: 'GET',
    path: '/things',
    tag: 'Things',
    summary: 'x',
    response: Type.Object({}),
    query: ['q', 'limit', 'cursor'],
  },
)
const pipeline = createPipeline(t.ctx)
const get = async (query: string) => {
  const res = await runOperation(
    pipeline,
    lookup,
    new Request(`http://x/things?${query}`),
    {},
    { requestId: 'r' },
  )
  return { status: res.status, body: await res.json() }
}

test('a required query parameter left empty is missing: 422 naming it', async () => {
  const r = await get('q=&cursor=')
  expect(r.status).toBe(422)
  expect(r.body.error.details).toEqual([{ field: 'q', message: 'is required' }])
})

test('beside a required parameter that is given, empty optional ones are absent', async () => {
  const r = await get('q=ann&cursor=&limit=')
  expect(r.status).toBe(200)
  expect(seen.at(-1)).toEqual({ q: 'ann' })
})

// Every GET of the document without path ids, with each optional query parameter it documents
// sent empty, answers what the bare path answers; the document says so (allowEmptyValue).
const doc = (await t.call('GET', '/openapi.json')).body as {
  paths: Record<
    string,
    Record<
      string,
      { parameters?: { name: string; in: string; required: boolean; allowEmptyValue?: boolean }[] }
    >
  >
}
const platform = await t.key({ scopes: ['admin:*'] })
/** An answer without its request id (an error's differs on every request); a file as its text. */
const withoutRequestId = (r: { body: { error?: object } | null; text: string }) =>
  r.body?.error ? { error: { ...r.body.error, request_id: undefined } } : (r.body ?? r.text)
const everyGet = Object.entries(doc.paths)
  .filter(([path, methods]) => methods.get && !path.includes('{'))
  .map(([path, methods]) => [path, (methods.get!.parameters ?? []).filter((p) => p.in === 'query')] as const)
  .filter(([, query]) => query.length > 0)

test('the document lists the GETs swept below', () => {
  expect(everyGet.map(([path]) => path)).toContain('/api/v1/campaigns')
  expect(everyGet.length).toBeGreaterThan(10)
})

test.each(
  everyGet.map(([path, query]) => [path, query] as const),
)('GET %s with every optional query parameter empty answers as without them', async (path, query) => {
  for (const p of query) expect(p.allowEmptyValue).toBe(!p.required)
  const empty = query.filter((p) => !p.required).map((p) => `${p.name}=`)
  // The tenant's key, and a platform-wide one (whose client_id= would otherwise name a client).
  for (const key of [acme.key, platform]) {
    const bare = await t.call('GET', path, { key })
    const sent = await t.call('GET', `${path}?${empty.join('&')}`, { key })
    expect(sent.status).toBe(bare.status)
    expect(withoutRequestId(sent)).toEqual(withoutRequestId(bare))
  }
})

test('client_id is required of a platform-wide key by analytics: client_id= is missing, a 422 naming it', async () => {
  const r = await t.call('GET', '/api/v1/analytics/funnel?client_id=&channel=', { key: platform })
  expect(r.status).toBe(422)
  expect(r.body.error.details).toEqual([
    { field: 'client_id', message: 'is required (query parameter) when using a platform-wide key' },
  ])
})

test('?client_id= where an operation reads client_id from its body is absent too', async () => {
  // With a platform-wide key (a tenant key's client_id is ignored): a search over every client.
  const body = { query: 'ann' }
  const bare = await t.call('POST', '/api/v1/contacts/search', { key: platform, body })
  const empty = await t.call('POST', '/api/v1/contacts/search?client_id=', { key: platform, body })
  expect(bare.status).toBe(200)
  expect(bare.body.data.map((c: { id: string }) => c.id)).toEqual([ann])
  expect(empty.status).toBe(200)
  expect(empty.text).toBe(bare.text)
})
