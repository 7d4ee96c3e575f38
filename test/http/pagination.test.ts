import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'

const t = await createTestApp()
const created: string[] = [t.defaultClientId]
for (let i = 0; i < 6; i++) created.push(await t.client(`Client ${i}`))
const newestFirst = [...created].reverse()

describe('cursor pagination', () => {
  test('pages walk the whole collection newest first, with total on each page', async () => {
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const q: string = cursor ? `?limit=3&cursor=${encodeURIComponent(cursor)}` : '?limit=3'
      const res = await t.call('GET', `/api/v1/clients${q}`)
      expect(res.status).toBe(200)
      expect(res.body.pagination.total).toBe(7)
      expect(res.body.pagination.limit).toBe(3)
      seen.push(...res.body.data.map((c: { id: string }) => c.id))
      cursor = res.body.pagination.next_cursor
      expect(res.body.pagination.has_more).toBe(cursor !== null)
      pages++
    } while (cursor && pages < 10)
    expect(pages).toBe(3)
    expect(seen).toEqual(newestFirst)
  })

  test('default limit is 50', async () => {
    const res = await t.call('GET', '/api/v1/clients')
    expect(res.body.pagination).toEqual({ total: 7, limit: 50, has_more: false, next_cursor: null })
  })

  const bad: [string, string][] = [
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=2.5', 'limit'],
    ['cursor=garbage', 'cursor'],
    ['unknown=1', 'unknown'],
  ]
  for (const [query, field] of bad) {
    test(`?${query} → 422 naming ${field}`, async () => {
      const res = await t.call('GET', `/api/v1/clients?${query}`)
      expect(res.status).toBe(422)
      expect(res.body.error.code).toBe('VALIDATION_FAILED')
      expect(res.body.error.details[0].field).toBe(field)
    })
  }

  test('a tampered cursor → 422', async () => {
    const first = await t.call('GET', '/api/v1/clients?limit=2')
    const cursor: string = first.body.pagination.next_cursor
    const [payload, mac] = cursor.split('.')
    const forged = Buffer.from(JSON.stringify({ p: created[0] })).toString('base64url')
    for (const c of [`${forged}.${mac}`, `${payload}.AAAAAAAAAAAAAAAA`, `${payload}`]) {
      const res = await t.call('GET', `/api/v1/clients?limit=2&cursor=${encodeURIComponent(c)}`)
      expect(res.status).toBe(422)
      expect(res.body.error.details[0].field).toBe('cursor')
    }
  })

  test('a platform-wide key can narrow api-keys to one client; a bad client_id is 422', async () => {
    const c = created[1]!
    await t.key({ scopes: ['contacts:read'], clientId: c })
    const res = await t.call('GET', `/api/v1/api-keys?client_id=${c}`)
    expect(res.status).toBe(200)
    expect(res.body.data.every((k: { client_id: string }) => k.client_id === c)).toBe(true)
    expect(res.body.pagination.total).toBe(1)
    const bad = await t.call('GET', '/api/v1/api-keys?client_id=nope')
    expect(bad.status).toBe(422)
    expect(bad.body.error.details[0].field).toBe('client_id')
  })
})
