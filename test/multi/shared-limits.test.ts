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

test("a client's hourly cap holds across two processes sending one campaign", async () => {
  const url = await blankDatabase()
  const { dns, sink, env } = await smtpWorld()
  const shared = {
    ...env,
    HERALD_DATABASE_URL: url,
    HERALD_SECRET_KEY: randomBytes(32).toString('hex'),
    HERALD_CLIENT_HOURLY_CAP: '400',
  }
  const a = await serve(join(bin.work, 'cap-a'), shared)
  const b = await serve(join(bin.work, 'cap-b'), shared)
  const { q, list } = await sendingAudience(a.call, dns, {
    domain: 'capped.example',
    from: 'news',
    fromName: 'News',
    contacts: 1000,
    prefix: 'cap',
    importMs: 30_000,
  })
  const campaign = await b.call('POST', `/api/v1/campaigns${q}`, {
    name: 'Capped',
    list_id: list.id,
    subject: 'Hello',
    body_html: '<p>Hi</p>',
  })
  await a.call('POST', `/api/v1/campaigns/${campaign.id}/launch`, { confirm: true })
  // Both processes send until the cap holds back the rest, to the next hour: 400 sent, 600 waiting
  // (counted per process, each would have let up to 400 through).
  let deferred = 0
  await until(
    async () => {
      const c = await (sink.received.length % 2 ? a : b).call('GET', `/api/v1/campaigns/${campaign.id}`)
      deferred = c.deferred?.count ?? 0
      return deferred + sink.received.length === 1000
    },
    60_000,
    'every message sent or deferred',
  )
  expect(sink.received).toHaveLength(400)
  expect(deferred).toBe(600)
  const held = await a.call('GET', `/api/v1/campaigns/${campaign.id}`)
  expect(held.deferred.reason).toBe('hourly_cap')
})

test("a recipient domain's per-minute limit holds across two processes sending one campaign", async () => {
  const url = await blankDatabase()
  const { dns, sink, env } = await smtpWorld()
  const LIMIT = 150
  const shared = {
    ...env,
    HERALD_DATABASE_URL: url,
    HERALD_SECRET_KEY: randomBytes(32).toString('hex'),
    HERALD_DOMAIN_THROTTLE: String(LIMIT),
  }
  const a = await serve(join(bin.work, 'throttle-a'), shared)
  const b = await serve(join(bin.work, 'throttle-b'), shared)
  const { q, list } = await sendingAudience(a.call, dns, {
    domain: 'throttled.example',
    from: 'news',
    fromName: 'News',
    contacts: 1000,
    prefix: 'throttle',
    importMs: 30_000,
  })
  const campaign = await b.call('POST', `/api/v1/campaigns${q}`, {
    name: 'Throttled',
    list_id: list.id,
    subject: 'Hello',
    body_html: '<p>Hi</p>',
  })
  const minuteOf = (ms: number) => Math.floor(ms / 60_000)
  const firstMinute = minuteOf(Date.now())
  await a.call('POST', `/api/v1/campaigns/${campaign.id}/launch`, { confirm: true })
  // Both processes send until the minute's window is full and the rest waits for the next one.
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
  // Each minute the test touched let LIMIT through, in all (counted per process, twice that);
  // and no minute more than LIMIT, but for sends of the minute before still arriving as it began.
  const minutes = minuteOf(Date.now()) - firstMinute + 1
  expect(sink.received.length).toBeGreaterThanOrEqual(LIMIT)
  expect(sink.received.length).toBeLessThanOrEqual(LIMIT * minutes)
  const perMinute = new Map<number, number>()
  for (const r of sink.received) perMinute.set(minuteOf(r.at), (perMinute.get(minuteOf(r.at)) ?? 0) + 1)
  expect(Math.max(...perMinute.values())).toBeLessThanOrEqual(LIMIT * 1.2)
  const held = await a.call('GET', `/api/v1/campaigns/${campaign.id}`)
  expect(held.deferred.reason).toBe('throttle')
})
