import { expect, setDefaultTimeout, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { useBinary } from '../helpers/binary'
import { keyedServers, sendingAudience, smtpWorld } from '../helpers/binary-api'
import { blankDatabase } from '../helpers/postgres'
import { until } from '../helpers/receiver'

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

/**
 * Two processes on a fresh database under `limits`, a verified domain and 1,000 contacts: a
 * campaign created on B and launched on A, with the SMTP sink that receives it. Resolves once
 * every message is sent or deferred, with the number deferred and the reason.
 */
async function campaignOnTwo(name: string, limits: Record<string, string>, started?: () => void) {
  const url = await blankDatabase()
  const { dns, sink, env } = await smtpWorld()
  const shared = {
    ...env,
    ...limits,
    HERALD_DATABASE_URL: url,
    HERALD_SECRET_KEY: randomBytes(32).toString('hex'),
  }
  const a = await serve(join(bin.work, `${name}-a`), shared)
  const b = await serve(join(bin.work, `${name}-b`), shared)
  const { q, list } = await sendingAudience(a.call, dns, {
    domain: `${name}.example`,
    from: 'news',
    fromName: 'News',
    contacts: 1000,
    prefix: name,
    importMs: 30_000,
  })
  const campaign = await b.call('POST', `/api/v1/campaigns${q}`, {
    name,
    list_id: list.id,
    subject: 'Hello',
    body_html: '<p>Hi</p>',
  })
  started?.()
  await a.call('POST', `/api/v1/campaigns/${campaign.id}/launch`, { confirm: true })
  // Both processes send until a limit holds back the rest.
  let deferred = 0
  await until(
    async () => {
      const c = await (sink.received.length % 2 ? a : b).call('GET', `/api/v1/campaigns/${campaign.id}`)
      deferred = c.deferred?.count ?? 0
      return deferred > 0 && deferred + sink.received.length === 1000
    },
    60_000,
    'every message sent or deferred',
  )
  const held = await a.call('GET', `/api/v1/campaigns/${campaign.id}`)
  return { sink, deferred, reason: held.deferred.reason as string }
}

test("a client's hourly cap holds across two processes sending one campaign", async () => {
  const { sink, deferred, reason } = await campaignOnTwo('capped', { HERALD_CLIENT_HOURLY_CAP: '400' })
  // 400 sent, 600 waiting for the next hour (counted per process, each would have let 400 through).
  expect(sink.received).toHaveLength(400)
  expect(deferred).toBe(600)
  expect(reason).toBe('hourly_cap')
})

test("a recipient domain's per-minute limit holds across two processes sending one campaign", async () => {
  const LIMIT = 150
  const minuteOf = (ms: number) => Math.floor(ms / 60_000)
  let firstMinute = 0
  const { sink, reason } = await campaignOnTwo('throttled', { HERALD_DOMAIN_THROTTLE: String(LIMIT) }, () => {
    firstMinute = minuteOf(Date.now())
  })
  // Each minute the test touched let LIMIT through, in all (counted per process, twice that);
  // and no minute more than LIMIT, but for sends of the minute before still arriving as it began.
  const minutes = minuteOf(Date.now()) - firstMinute + 1
  expect(sink.received.length).toBeGreaterThanOrEqual(LIMIT)
  expect(sink.received.length).toBeLessThanOrEqual(LIMIT * minutes)
  const perMinute = new Map<number, number>()
  for (const r of sink.received) perMinute.set(minuteOf(r.at), (perMinute.get(minuteOf(r.at)) ?? 0) + 1)
  expect(Math.max(...perMinute.values())).toBeLessThanOrEqual(LIMIT * 1.2)
  expect(reason).toBe('throttle')
})
