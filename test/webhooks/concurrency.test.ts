import { afterAll, describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { toPrefixedId } from '../../src/lib/ids'
import { createWebhookWorker, startWebhookWorker } from '../../src/webhooks/worker'
import { createTestApp, type TestApp } from '../helpers/app'
import { type Receiver, startReceiver, until } from '../helpers/receiver'

// Several requests in flight to one endpoint (issue 15, part 4): the bound per endpoint, no
// order promised beyond "started oldest first" (one at a time keeps event order), a slow
// endpoint holding only its own lane, and failures (retries, 410) handled as with one request
// at a time. Negative outcomes are checked after drain() on the test clock.

const IN_FLIGHT = 4

/** A receiver that counts the requests it is answering at once (and the most at any time). */
function countingReceiver(
  answer: () => Promise<Response> | Response = () => new Response(null, { status: 204 }),
) {
  const rx = startReceiver()
  const load = { now: 0, max: 0 }
  rx.respond = async () => {
    load.now++
    load.max = Math.max(load.max, load.now)
    try {
      // Held for a moment so that the requests of one claim overlap.
      await Bun.sleep(5)
      return await answer()
    } finally {
      load.now--
    }
  }
  return { rx, load }
}

let n = 0
async function tenant(t: TestApp, url: string) {
  const clientId = await t.client(`K${++n}`)
  const key = await t.key({ scopes: ['contacts:write'], clientId })
  const hook = (
    await t.call('POST', '/api/v1/webhooks', { key, body: { url, events: ['contact.unsubscribed'] } })
  ).body.data
  /** `count` contact.unsubscribed events, in this order; their contact ids. */
  const produce = async (count: number) => {
    const ids: string[] = []
    for (let i = 0; i < count; i++) {
      const c = (await t.call('POST', '/api/v1/contacts', { key, body: { email: `k${++n}@example.com` } }))
        .body.data
      const r = await t.call('PATCH', `/api/v1/contacts/${c.id}`, { key, body: { status: 'unsubscribed' } })
      expect(r.status).toBe(200)
      ids.push(toPrefixedId('contact', c.id))
    }
    return ids
  }
  const list = async () =>
    (await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?limit=200`, { key })).body.data as {
      status: string
      attempts: number
      last_status: number | null
      attempt_log: unknown[]
    }[]
  return { hook, key, produce, list }
}

const contactsOf = (rx: Receiver) => rx.received.map((r) => JSON.parse(r.body).data.contact_id as string)

describe('driven on the test clock', async () => {
  let now = Date.now()
  const t = await createTestApp({ env: { HERALD_WEBHOOK_ALLOW_PRIVATE: '1' }, clock: { now: () => now } })
  const w = createWebhookWorker(t.ctx, {
    schedule: [0, 60_000, 60_000],
    timeoutMs: 2000,
    inFlight: IN_FLIGHT,
  })
  afterAll(() => w.stop())

  test('never more than the bound in flight to one endpoint; every event once, each verified', async () => {
    const { rx, load } = countingReceiver()
    const { hook, produce, list } = await tenant(t, rx.url)
    const ids = await produce(30)
    await w.drain()
    expect(load.max).toBe(IN_FLIGHT)
    // Every event once; the order of arrival is not promised.
    expect(contactsOf(rx).sort()).toEqual([...ids].sort())
    const verifier = new Webhook(hook.secret)
    for (const r of rx.received) {
      // Signed with the test clock's time: compare the signature rather than verify()'s clock.
      const at = new Date(Number(r.headers['webhook-timestamp']) * 1000)
      expect(r.headers['webhook-signature']).toBe(verifier.sign(r.headers['webhook-id']!, at, r.body))
    }
    // Every attempt logged; the outcomes written together are all there after drain().
    const deliveries = await list()
    expect(deliveries).toHaveLength(30)
    for (const d of deliveries) {
      expect(d).toMatchObject({ status: 'succeeded', attempts: 1, last_status: 204 })
      expect(d.attempt_log).toHaveLength(1)
    }
    await rx.close()
  })

  test('a failing endpoint: each delivery retried on its own schedule, none lost, none sent twice', async () => {
    let failing = true
    const { rx, load } = countingReceiver(
      () => new Response(failing ? 'down' : 'ok', { status: failing ? 503 : 200 }),
    )
    const { produce, list } = await tenant(t, rx.url)
    const ids = await produce(12)
    await w.drain()
    expect(load.max).toBe(IN_FLIGHT)
    expect(rx.received).toHaveLength(12)
    for (const d of await list())
      expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status: 503 })
    // Not due before the schedule's 60 s: nothing is sent.
    now += 59_000
    await w.drain()
    expect(rx.received).toHaveLength(12)
    failing = false
    now += 1_000
    await w.drain()
    expect(rx.received).toHaveLength(24)
    expect(contactsOf(rx).slice(12).sort()).toEqual([...ids].sort())
    const byId = new Map<string, number>()
    for (const r of rx.received)
      byId.set(r.headers['webhook-id']!, (byId.get(r.headers['webhook-id']!) ?? 0) + 1)
    expect([...byId.values()]).toEqual(Array(12).fill(2))
    for (const d of await list())
      expect(d).toMatchObject({ status: 'succeeded', attempts: 2, last_status: 200 })
    await rx.close()
  })

  test('410 with requests in flight: the endpoint is disabled, nothing new starts, the rest waits', async () => {
    const { rx } = countingReceiver(() => new Response('gone', { status: 410 }))
    const { hook, key, produce, list } = await tenant(t, rx.url)
    await produce(20)
    await w.drain()
    // The first claim starts IN_FLIGHT requests at once; the first 410 stops the lane.
    expect(rx.received).toHaveLength(IN_FLIGHT)
    const got = (await t.call('GET', `/api/v1/webhooks/${hook.id}`, { key })).body.data
    expect(got).toMatchObject({ active: false, disabled_reason: 'gone' })
    now += 10 * 60_000
    await w.drain()
    expect(rx.received).toHaveLength(IN_FLIGHT)
    const deliveries = await list()
    expect(deliveries.filter((d) => d.status === 'failed' && d.last_status === 410)).toHaveLength(IN_FLIGHT)
    expect(deliveries.filter((d) => d.status === 'pending' && d.attempts === 0)).toHaveLength(20 - IN_FLIGHT)
    await rx.close()
  })
})

test('one request at a time (HERALD_WEBHOOK_CONCURRENCY=1) keeps event order', async () => {
  const t = await createTestApp({
    env: { HERALD_WEBHOOK_ALLOW_PRIVATE: '1', HERALD_WEBHOOK_CONCURRENCY: '1' },
  })
  expect(t.ctx.config.webhookConcurrency).toBe(1)
  const w = createWebhookWorker(t.ctx, { schedule: [0] })
  const { rx, load } = countingReceiver()
  const { produce } = await tenant(t, rx.url)
  const ids = await produce(15)
  await w.drain()
  expect(load.max).toBe(1)
  expect(contactsOf(rx)).toEqual(ids)
  await w.stop()
  await rx.close()
})

test('a slow endpoint holds only its own lane', async () => {
  const t = await createTestApp({ env: { HERALD_WEBHOOK_ALLOW_PRIVATE: '1' } })
  const w = startWebhookWorker(t.ctx, { schedule: [0], pollMs: 10, inFlight: IN_FLIGHT, timeoutMs: 30_000 })
  let release = () => {}
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  const slow = startReceiver()
  slow.respond = async () => {
    await held
    return new Response(null, { status: 204 })
  }
  const fast = startReceiver()
  const s = await tenant(t, slow.url)
  const f = await tenant(t, fast.url)
  await s.produce(10)
  await until(() => slow.received.length === IN_FLIGHT, 5000, 'the slow endpoint’s first requests')
  const ids = await f.produce(10)
  // Every event of the other endpoint arrives while the slow one answers none.
  await until(() => fast.received.length === 10, 5000, 'the fast endpoint’s events')
  expect(contactsOf(fast).sort()).toEqual([...ids].sort())
  expect(slow.received).toHaveLength(IN_FLIGHT)
  release()
  await until(() => slow.received.length === 10, 5000, 'the slow endpoint’s events once it answers')
  await w.stop()
  await slow.close()
  await fast.close()
})
