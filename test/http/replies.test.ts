import { beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { createTestApp } from '../helpers/app'
import { runSql } from '../helpers/raw-sql'
import { scenarios } from '../helpers/scenarios'
import { recordingProvider, startTestSender } from '../helpers/sender'
import { type EmailOut, INBOUND_ENV, replyTo, sendCampaign } from '../inbound/fixtures'

// GET /api/v1/replies and /replies/{id}: scope replies:read, paginated, tenant-scoped.

const t = await createTestApp({ env: { HERALD_INBOUND_DOMAIN: INBOUND_ENV.HERALD_INBOUND_DOMAIN } })
const provider = recordingProvider()
startTestSender(t, provider)

const reply = (m: EmailOut, text: string) => replyTo(t, m, text)

let a: Awaited<ReturnType<typeof sendCampaign>>
let b: Awaited<ReturnType<typeof sendCampaign>>
let readA: string
let readB: string
const ids: string[] = []
beforeAll(async () => {
  a = await sendCampaign(t, provider, ['ann@example.com', 'bob@example.com'])
  b = await sendCampaign(t, provider, ['cy@example.com'])
  ids.push(await reply(a.out['ann@example.com']!, 'First from Ann'))
  ids.push(await reply(a.out['bob@example.com']!, 'Bob here\n\n> quoted'))
  ids.push(await reply(a.out['ann@example.com']!, 'Ann again'))
  await reply(b.out['cy@example.com']!, 'Cy of the other client')
  readA = await t.key({ scopes: ['replies:read'], clientId: a.clientId })
  readB = await t.key({ scopes: ['replies:read'], clientId: b.clientId })
})

const get = (path: string, key?: string) => t.call('GET', path, { key })

describe('GET /api/v1/replies', () => {
  test('a tenant key sees its own replies, newest first, presented in full', async () => {
    const r = await get('/api/v1/replies', readA)
    expect(r.status).toBe(200)
    expect(r.body.data.map((x: { id: string }) => x.id)).toEqual([...ids].reverse())
    expect(r.body.pagination).toEqual({ total: 3, limit: 50, has_more: false, next_cursor: null })
    const bob = r.body.data[1]
    expect(bob).toEqual({
      id: ids[1],
      client_id: a.clientId,
      message_id: a.out['bob@example.com']!.id,
      campaign_id: a.campaign.id,
      journey_id: null,
      sequence_id: null,
      contact_id: a.contacts['bob@example.com'],
      from: 'bob@example.com',
      subject: 'Re: Hello',
      snippet: 'Bob here',
      body_text: 'Bob here\n\n> quoted',
      received_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    })
  })

  test('paginates with a cursor', async () => {
    const first = await get('/api/v1/replies?limit=2', readA)
    expect(first.body.data).toHaveLength(2)
    expect(first.body.pagination).toMatchObject({ total: 3, has_more: true })
    const next = await get(`/api/v1/replies?limit=2&cursor=${first.body.pagination.next_cursor}`, readA)
    expect(next.body.data.map((x: { id: string }) => x.id)).toEqual([ids[0]])
    expect((await get('/api/v1/replies?cursor=bogus', readA)).status).toBe(422)
  })

  test('filters by contact_id and campaign_id (UUID or prefixed); a bad id is 422', async () => {
    const ann = a.contacts['ann@example.com']!
    const byContact = await get(`/api/v1/replies?contact_id=con_${ann.replaceAll('-', '')}`, readA)
    expect(byContact.body.data.map((x: { id: string }) => x.id)).toEqual([ids[2], ids[0]])
    expect((await get(`/api/v1/replies?campaign_id=${a.campaign.id}`, readA)).body.pagination.total).toBe(3)
    expect((await get(`/api/v1/replies?campaign_id=${b.campaign.id}`, readA)).body.data).toEqual([])
    const bad = await get('/api/v1/replies?campaign_id=nope', readA)
    expect(bad.status).toBe(422)
    expect(bad.body.error.details[0].field).toBe('campaign_id')
  })

  test('another client sees none of them; a platform key sees all and may narrow by client_id', async () => {
    const other = await get('/api/v1/replies', readB)
    expect(other.body.data.map((x: { client_id: string }) => x.client_id)).toEqual([b.clientId])
    expect((await get(`/api/v1/replies?client_id=${a.clientId}`, readB)).body.pagination.total).toBe(1)
    expect((await get('/api/v1/replies')).body.pagination.total).toBe(4)
    expect((await get(`/api/v1/replies?client_id=${a.clientId}`)).body.pagination.total).toBe(3)
  })

  test('needs replies:read (403 naming it)', async () => {
    const key = await t.key({ scopes: ['contacts:read', 'campaigns:read'], clientId: a.clientId })
    for (const path of ['/api/v1/replies', `/api/v1/replies/${ids[0]}`]) {
      const r = await get(path, key)
      expect(r.status).toBe(403)
      expect(r.body.error.code).toBe('FORBIDDEN')
      expect(r.body.error.message).toContain('replies:read')
      expect(r.body.error.details.required_scope).toBe('replies:read')
    }
    expect((await get('/api/v1/replies', '')).status).toBe(401)
  })
})

describe('GET /api/v1/replies/{id}', () => {
  test('by UUID or rpl_ id', async () => {
    const r = await get(`/api/v1/replies/${ids[0]}`, readA)
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ id: ids[0], snippet: 'First from Ann', from: 'ann@example.com' })
    const prefixed = await get(`/api/v1/replies/rpl_${ids[0]!.replaceAll('-', '')}`, readA)
    expect(prefixed.body.data.id).toBe(ids[0])
  })

  test("another client's reply, an unknown id and a non-id are 404", async () => {
    for (const path of [
      `/api/v1/replies/${ids[0]}`,
      '/api/v1/replies/01a207fe-5049-7476-b6cd-bf3b1f254347',
      '/api/v1/replies/x',
    ]) {
      const r = await get(path, readB)
      expect(r.status).toBe(404)
      expect(r.body.error.code).toBe('NOT_FOUND')
    }
  })
})

// Gap 8 of the s6 acceptance review: replies carry journey_id and sequence_id, and GET /messages
// filters by them, but GET /replies did not (the members were refused as unknown). Replies to a
// journey's and a sequence's message: the outbox rows are marked as theirs (their sends are
// covered in test/services/journeys and sequences), then answered through POST /inbound/email,
// which copies the message's journey_id and sequence_id into the reply.
describe('GET /api/v1/replies?journey_id= / ?sequence_id=', () => {
  const fromJourney: string[] = []
  const fromSequence: string[] = []
  let journey: string
  let sequence: string
  let theirJourney: string
  let theirSequence: string
  beforeAll(async () => {
    const adminA = await t.key({ scopes: ['admin:*'], clientId: a.clientId })
    const adminB = await t.key({ scopes: ['admin:*'], clientId: b.clientId })
    const create = async (key: string, path: string) => {
      const r = await t.call('POST', path, { key, body: { name: 'Draft' } })
      expect(r.status).toBe(200)
      return r.body.data.id as string
    }
    journey = await create(adminA, '/api/v1/journeys')
    sequence = await create(adminA, '/api/v1/sequences')
    theirJourney = await create(adminB, '/api/v1/journeys')
    theirSequence = await create(adminB, '/api/v1/sequences')
    const mark = async (m: EmailOut, column: 'journey_id' | 'sequence_id', id: string) =>
      await runSql(
        t,
        sql`UPDATE messages SET campaign_id = NULL, source_kind = ${column === 'journey_id' ? 'journey' : 'sequence'},
          source_id = ${id} WHERE id = ${m.id}`,
      )
    await mark(a.out['ann@example.com']!, 'journey_id', journey)
    await mark(a.out['bob@example.com']!, 'sequence_id', sequence)
    await mark(b.out['cy@example.com']!, 'journey_id', theirJourney)
    fromJourney.push(await reply(a.out['ann@example.com']!, 'Journey answer'))
    fromSequence.push(await reply(a.out['bob@example.com']!, 'Sequence answer'))
    await reply(b.out['cy@example.com']!, 'Their journey answer')
  })
  const idsOf = async (path: string, key = readA) => {
    const r = await get(path, key)
    expect(r.status).toBe(200)
    return r.body.data.map((x: { id: string }) => x.id)
  }

  test('journey_id (UUID or jrn_) narrows to the replies to that journey', async () => {
    expect(await idsOf(`/api/v1/replies?journey_id=${journey}`)).toEqual(fromJourney)
    expect(await idsOf(`/api/v1/replies?journey_id=jrn_${journey.replaceAll('-', '')}`)).toEqual(fromJourney)
    const r = (await get(`/api/v1/replies?journey_id=${journey}`, readA)).body.data[0]
    expect(r).toMatchObject({ journey_id: journey, sequence_id: null, campaign_id: null })
  })

  test('sequence_id (UUID or seq_) narrows to the replies to that sequence', async () => {
    expect(await idsOf(`/api/v1/replies?sequence_id=${sequence}`)).toEqual(fromSequence)
    expect(await idsOf(`/api/v1/replies?sequence_id=seq_${sequence.replaceAll('-', '')}`)).toEqual(
      fromSequence,
    )
    expect(await idsOf(`/api/v1/replies?sequence_id=${sequence}&journey_id=${journey}`)).toEqual([])
  })

  test("another client's journey or sequence: an empty list, as GET /messages answers", async () => {
    for (const q of [`journey_id=${theirJourney}`, `sequence_id=${theirSequence}`]) {
      expect(await idsOf(`/api/v1/replies?${q}`)).toEqual([])
      expect(
        await idsOf(`/api/v1/messages?${q}`, await t.key({ scopes: ['admin:*'], clientId: a.clientId })),
      ).toEqual([])
    }
    // Their own key sees their reply.
    expect(await idsOf(`/api/v1/replies?journey_id=${theirJourney}`, readB)).toHaveLength(1)
  })

  test('both filters are in the OpenAPI operation', async () => {
    const doc = (await t.call('GET', '/openapi.json')).body
    const names = doc.paths['/api/v1/replies'].get.parameters.map((p: { name: string }) => p.name)
    expect(names).toEqual(expect.arrayContaining(['journey_id', 'sequence_id']))
  })

  scenarios(t, { method: 'GET', path: '/api/v1/replies', key: () => readA }, [
    {
      name: 'journey_id that is not an id',
      path: '/api/v1/replies?journey_id=nope',
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'journey_id',
      // As GET /messages words it (a filter, not an unknown query parameter).
      message: /^must be a journey id /,
    },
    {
      name: 'sequence_id that is not an id',
      path: '/api/v1/replies?sequence_id=nope',
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'sequence_id',
      // As GET /messages words it (a filter, not an unknown query parameter).
      message: /^must be a sequence id /,
    },
  ])
})
