import { describe, expect, test } from 'bun:test'
import { isSuppressed } from '../../src/services/suppressions/check'
import { createTestApp } from '../helpers/app'

const t = await createTestApp()
const acme = await t.client('Acme')
const globex = await t.client('Globex')
const acmeCompliance = await t.key({ scopes: ['compliance:read'], clientId: acme })
const globexCompliance = await t.key({ scopes: ['compliance:read'], clientId: globex })

describe('suppressions', () => {
  test('POST needs compliance:read (as the spec says)', async () => {
    const k = await t.key({ scopes: ['contacts:write'], clientId: acme })
    const res = await t.call('POST', '/api/v1/suppressions', { key: k, body: { email: 'x@y.io' } })
    expect(res.status).toBe(403)
    expect(res.body.error.details.required_scope).toBe('compliance:read')
  })

  test('suppression is per client and case-insensitive; adding twice is not an error', async () => {
    const first = await t.call('POST', '/api/v1/suppressions', {
      key: acmeCompliance,
      body: { email: 'Stop@Example.com', reason: 'asked' },
    })
    expect(first.status).toBe(200)
    expect(first.body.data).toMatchObject({
      email: 'stop@example.com',
      source: 'api',
      reason: 'asked',
      client_id: acme,
    })
    const again = await t.call('POST', '/api/v1/suppressions', {
      key: acmeCompliance,
      body: { email: 'STOP@example.com' },
    })
    expect(again.body.data.id).toBe(first.body.data.id)
    expect(await isSuppressed(t.ctx.db, acme, 'stop@EXAMPLE.com')).toBe(true)
    expect(await isSuppressed(t.ctx.db, globex, 'stop@example.com')).toBe(false)
    const list = await t.call('GET', '/api/v1/suppressions', { key: globexCompliance })
    expect(list.body.data).toEqual([])
  })

  test('DELETE lifts it; another client cannot; unknown is 404', async () => {
    await t.call('POST', '/api/v1/suppressions', { key: acmeCompliance, body: { email: 'lift@example.com' } })
    expect(
      (await t.call('DELETE', '/api/v1/suppressions/lift%40example.com', { key: globexCompliance })).status,
    ).toBe(404)
    const res = await t.call('DELETE', '/api/v1/suppressions/LIFT@example.com', { key: acmeCompliance })
    expect(res.status).toBe(200)
    expect(await isSuppressed(t.ctx.db, acme, 'lift@example.com')).toBe(false)
    expect(
      (await t.call('DELETE', '/api/v1/suppressions/lift@example.com', { key: acmeCompliance })).status,
    ).toBe(404)
  })

  test('a platform-wide key must name the client when several clients suppress the address', async () => {
    await t.call('POST', `/api/v1/suppressions?client_id=${acme}`, { body: { email: 'both@example.com' } })
    await t.call('POST', `/api/v1/suppressions?client_id=${globex}`, { body: { email: 'both@example.com' } })
    const ambiguous = await t.call('DELETE', '/api/v1/suppressions/both@example.com')
    expect(ambiguous.status).toBe(422)
    expect(ambiguous.body.error.details[0].field).toBe('client_id')
    const res = await t.call('DELETE', `/api/v1/suppressions/both@example.com?client_id=${globex}`)
    expect(res.status).toBe(200)
    expect(await isSuppressed(t.ctx.db, acme, 'both@example.com')).toBe(true)
  })

  test('validation', async () => {
    const res = await t.call('POST', '/api/v1/suppressions', { key: acmeCompliance, body: { email: 'nope' } })
    expect(res.status).toBe(422)
    expect(res.body.error.details[0].field).toBe('email')
  })
})
