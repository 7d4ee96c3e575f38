import { describe, expect, test } from 'bun:test'
import { count } from 'drizzle-orm'
import { clients, idempotencyKeys } from '../../src/db/schema'
import { sha256Hex } from '../../src/lib/crypto'
import { purgeIdempotencyKeys } from '../../src/services/idempotency'
import { createTestApp } from '../helpers/app'

let now = Date.now()
const t = await createTestApp({ clock: { now: () => now } })
const clientCount = async () => (await t.ctx.db.select({ n: count() }).from(clients).limit(1))[0]!.n

describe('Idempotency-Key', () => {
  test('a retry returns the stored response and does not repeat the operation', async () => {
    const before = await clientCount()
    const first = await t.call('POST', '/api/v1/clients', {
      body: { name: 'Once' },
      headers: { 'idempotency-key': 'k1' },
    })
    expect(first.status).toBe(200)
    expect(first.headers.get('idempotency-key')).toBe('k1')
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const again = await t.call('POST', '/api/v1/clients', {
      body: { name: 'Once' },
      headers: { 'idempotency-key': 'k1' },
    })
    expect(again.status).toBe(200)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.headers.get('idempotency-key')).toBe('k1')
    expect(again.body).toEqual(first.body)
    expect(await clientCount()).toBe(before + 1)
  })

  test('same key with a different body, path or method → 422 IDEMPOTENCY_KEY_REUSED', async () => {
    await t.call('POST', '/api/v1/clients', { body: { name: 'A' }, headers: { 'idempotency-key': 'k2' } })
    const otherBody = await t.call('POST', '/api/v1/clients', {
      body: { name: 'B' },
      headers: { 'idempotency-key': 'k2' },
    })
    expect(otherBody.status).toBe(422)
    expect(otherBody.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED')
    const otherPath = await t.call('PATCH', `/api/v1/clients/${t.defaultClientId}`, {
      body: { name: 'A' },
      headers: { 'idempotency-key': 'k2' },
    })
    expect(otherPath.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED')
  })

  test('the scope is the credential: another key may use the same Idempotency-Key', async () => {
    const other = await t.key({ scopes: ['admin:*'] })
    await t.call('POST', '/api/v1/clients', {
      body: { name: 'Mine' },
      headers: { 'idempotency-key': 'shared' },
    })
    const res = await t.call('POST', '/api/v1/clients', {
      key: other,
      body: { name: 'Theirs' },
      headers: { 'idempotency-key': 'shared' },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('idempotent-replayed')).toBeNull()
    expect(res.body.data.name).toBe('Theirs')
  })

  test('a request still in flight → 409 IDEMPOTENCY_KEY_IN_USE', async () => {
    const keyId = (await t.ctx.db.select().from(idempotencyKeys))[0]!.credentialId
    const body = JSON.stringify({ name: 'X' })
    // What the first request leaves while its verb runs: the reservation without a response.
    await t.ctx.db.insert(idempotencyKeys).values({
      credentialId: keyId,
      key: 'busy',
      method: 'POST',
      path: '/api/v1/clients',
      bodyHash: sha256Hex(body),
      createdAt: now,
    })
    const res = await t.call('POST', '/api/v1/clients', {
      raw: body,
      headers: { 'idempotency-key': 'busy', 'content-type': 'application/json' },
    })
    expect(res.status).toBe(409)
    expect(res.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE')
  })

  test('requests racing with one key: one runs, the others replay it or get 409, none a 500', async () => {
    const before = await clientCount()
    const all = await Promise.all(
      Array.from({ length: 12 }, () =>
        t.call('POST', '/api/v1/clients', {
          body: { name: 'Raced' },
          headers: { 'idempotency-key': 'race' },
        }),
      ),
    )
    const outcomes = all.map((r) =>
      r.status === 200
        ? r.headers.get('idempotent-replayed')
          ? 'replayed'
          : 'ran'
        : `${r.status} ${r.body.error?.code}`,
    )
    for (const o of outcomes) expect(['ran', 'replayed', '409 IDEMPOTENCY_KEY_IN_USE']).toContain(o)
    expect(outcomes.filter((o) => o === 'ran')).toHaveLength(1)
    expect(await clientCount()).toBe(before + 1)
  })

  test('4xx outcomes are stored and replayed too', async () => {
    const first = await t.call('POST', '/api/v1/clients', {
      body: { name: '' },
      headers: { 'idempotency-key': 'bad' },
    })
    expect(first.status).toBe(422)
    const again = await t.call('POST', '/api/v1/clients', {
      body: { name: '' },
      headers: { 'idempotency-key': 'bad' },
    })
    expect(again.status).toBe(422)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body.error.request_id).toBe(first.body.error.request_id) // the original body
  })

  test('an Idempotency-Key over 255 characters → 422 naming the header; nothing is done', async () => {
    const before = await clientCount()
    const res = await t.call('POST', '/api/v1/clients', {
      body: { name: 'Long' },
      headers: { 'idempotency-key': 'k'.repeat(256) },
    })
    expect(res.status).toBe(422)
    expect(res.body.error.details[0].field).toBe('Idempotency-Key')
    expect(await clientCount()).toBe(before)
  })

  test('after 24 hours the key can be used afresh, and the purge job removes old entries', async () => {
    await t.call('POST', '/api/v1/clients', {
      body: { name: 'Day1' },
      headers: { 'idempotency-key': 'daily' },
    })
    now += 24 * 60 * 60 * 1000 + 1
    const next = await t.call('POST', '/api/v1/clients', {
      body: { name: 'Day2' },
      headers: { 'idempotency-key': 'daily' },
    })
    expect(next.headers.get('idempotent-replayed')).toBeNull()
    expect(next.body.data.name).toBe('Day2')
    expect(await purgeIdempotencyKeys(t.ctx)).toBeGreaterThan(0)
    const left = await t.ctx.db.select().from(idempotencyKeys)
    expect(left.map((r) => r.key)).toEqual(['daily'])
  })
})
