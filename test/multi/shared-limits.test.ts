import { expect, setDefaultTimeout, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { useBinary } from '../helpers/binary'
import { keyedServers } from '../helpers/binary-api'
import { blankDatabase } from '../helpers/postgres'

// Two `herald serve` processes on one PostgreSQL count a key's rate limit and an address's
// sign-in limit together: requests sent to both alternately get the tier's allowance once, not
// once per process.

setDefaultTimeout(120_000)
const bin = useBinary('herald-limits-')
const serve = keyedServers(bin, `hrld_${'Limits0Proc1Key2'.repeat(3)}`)

test("a key's tier and an address's sign-in limit hold across two processes", async () => {
  const url = await blankDatabase()
  const shared = { HERALD_DATABASE_URL: url, HERALD_SECRET_KEY: randomBytes(32).toString('hex') }
  const a = await serve(join(bin.work, 'a'), shared)
  const b = await serve(join(bin.work, 'b'), shared)

  // A standard key: a burst of 100, refilled at 600 a minute.
  const { key } = await a.call('POST', '/api/v1/api-keys', {
    name: 'standard',
    scopes: ['admin:*'],
    tier: 'standard',
  })
  const started = performance.now()
  let allowed = 0
  let refused = 0
  for (let i = 0; i < 300; i++) {
    const res = await fetch(`${(i % 2 ? a : b).base}/api/v1/clients`, {
      headers: { authorization: `Bearer ${key}` },
    })
    await res.arrayBuffer()
    if (res.status === 200) allowed++
    else {
      expect(res.status).toBe(429)
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      refused++
    }
  }
  const seconds = (performance.now() - started) / 1000
  // Within 10 % of what the tier allows over the time the requests took; per process it was twice.
  const budget = 100 + 10 * seconds
  expect(allowed).toBeLessThanOrEqual(Math.ceil(budget * 1.1))
  expect(allowed).toBeGreaterThanOrEqual(Math.floor(Math.min(budget, 300) * 0.9))
  expect(refused).toBeGreaterThan(0)

  // Sign-in at the portal: 20 a minute from one address, across both processes.
  let signIns = 0
  for (let i = 0; i < 40; i++) {
    const res = await fetch(`${(i % 2 ? a : b).base}/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=nobody%40example.com&password=wrong',
      redirect: 'manual',
    })
    await res.arrayBuffer()
    if (res.status !== 429) signIns++
  }
  expect(signIns).toBeGreaterThanOrEqual(18)
  expect(signIns).toBeLessThanOrEqual(22)
})
