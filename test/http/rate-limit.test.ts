import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'

let now = 1_800_000_000_000
const t = await createTestApp({ clock: { now: () => now } })

describe('per-key rate limits', () => {
  test('standard tier: burst of 100, then 429 with Retry-After; tokens refill over time', async () => {
    const key = await t.key({ scopes: ['contacts:read'], tier: 'standard' })
    const first = await t.call('GET', '/api/v1/clients', { key })
    expect(first.headers.get('ratelimit-limit')).toBe('100')
    expect(first.headers.get('ratelimit-remaining')).toBe('99')
    expect(first.headers.get('ratelimit-reset')).toBe('1')
    for (let i = 0; i < 99; i++) expect((await t.call('GET', '/api/v1/clients', { key })).status).toBe(200)
    const limited = await t.call('GET', '/api/v1/clients', { key })
    expect(limited.status).toBe(429)
    expect(limited.body.error.code).toBe('RATE_LIMITED')
    expect(limited.headers.get('retry-after')).toBe('1') // 600/min = one token every 100 ms
    expect(limited.headers.get('ratelimit-remaining')).toBe('0')
    expect(limited.headers.get('ratelimit-reset')).toBe('10')
    now += 1000
    const refilled = await t.call('GET', '/api/v1/clients', { key })
    expect(refilled.status).toBe(200)
    expect(refilled.headers.get('ratelimit-remaining')).toBe('9')
  })

  test('buckets are per key', async () => {
    const a = await t.key({ scopes: ['contacts:read'], tier: 'standard' })
    const b = await t.key({ scopes: ['contacts:read'], tier: 'standard' })
    for (let i = 0; i < 100; i++) await t.call('GET', '/api/v1/clients', { key: a })
    expect((await t.call('GET', '/api/v1/clients', { key: a })).status).toBe(429)
    expect((await t.call('GET', '/api/v1/clients', { key: b })).status).toBe(200)
  })

  test('tiers: growth bursts 500, scale 2000; unlimited sends no RateLimit headers', async () => {
    const growth = await t.call('GET', '/api/v1/clients', {
      key: await t.key({ scopes: ['contacts:read'], tier: 'growth' }),
    })
    expect(growth.headers.get('ratelimit-limit')).toBe('500')
    const scale = await t.call('GET', '/api/v1/clients', {
      key: await t.key({ scopes: ['contacts:read'], tier: 'scale' }),
    })
    expect(scale.headers.get('ratelimit-limit')).toBe('2000')
    const unlimited = await t.call('GET', '/api/v1/clients', {
      key: await t.key({ scopes: ['contacts:read'], tier: 'unlimited' }),
    })
    expect(unlimited.headers.get('ratelimit-limit')).toBeNull()
  })

  test('a 403 is an authenticated response: it carries the RateLimit headers and spends a token', async () => {
    const key = await t.key({ scopes: ['contacts:read'], tier: 'standard' })
    const res = await t.call('GET', '/api/v1/api-keys', { key })
    expect(res.status).toBe(403)
    expect(res.headers.get('ratelimit-remaining')).toBe('99')
  })
})
