import { describe, expect, test } from 'bun:test'
import { BASE, createTestApp } from '../../helpers/app'
import { testClock } from '../../helpers/journey'

// DESIGN §5: each unauthenticated OAuth endpoint has its own 20/min bucket per IP.

const clock = testClock()
const t = await createTestApp({ clock })

const post = (path: string, ip: string, body: string, type: string) =>
  t.app.handle(
    new Request(BASE + path, {
      method: 'POST',
      headers: { 'content-type': type, 'x-forwarded-for': ip },
      body,
    }),
  )
const token = (ip: string) =>
  post('/oauth2/token', ip, 'grant_type=client_credentials&client_id=x', 'application/x-www-form-urlencoded')
const register = (ip: string) =>
  post('/oauth2/register', ip, JSON.stringify({ redirect_uris: ['http://x.example/cb'] }), 'application/json')
const revoke = (ip: string) =>
  post('/oauth2/revoke', ip, 'token=x&client_id=x', 'application/x-www-form-urlencoded')

describe('per-IP buckets of /oauth2/token, /oauth2/register, /oauth2/revoke', () => {
  test.each([
    ['token', token, 401],
    ['register', register, 400],
    ['revoke', revoke, 401],
  ] as const)('%s: 20 a minute from one address, the 21st is 429 with Retry-After; others and other endpoints unaffected', async (_, call, status) => {
    // The same address for every endpoint: each has a bucket of its own.
    const ip = '198.51.100.1'
    for (let i = 0; i < 20; i++) expect((await call(ip)).status).toBe(status)
    const refused = await call(ip)
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect((await refused.json()).error).toBe('rate_limited')
    expect((await call('203.0.113.7')).status).toBe(status)
    clock.t += 60_000
    expect((await call(ip)).status).toBe(status)
  })
})
