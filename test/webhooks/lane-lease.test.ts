import { afterAll, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { webhookAttempts, webhookDeliveries, webhookLanes } from '../../src/db/schema'
import { webhookQueueOf } from '../../src/db/webhook-queue'
import { createWebhookWorker } from '../../src/webhooks/worker'
import { createTestApp } from '../helpers/app'
import { startReceiver, until } from '../helpers/receiver'
import { unsubscribeEvents } from '../helpers/unsubscribe-events'

// Two webhook workers on one database stand for two processes. One at a time holds an endpoint's
// lane: the other claims none of its deliveries meanwhile (and does not spin on them), so the
// endpoint receives its events in order, each once; when the holder dies, the other takes the
// lane over once its lease ends. Driven with runOnce()/drain() on the test clock.

// A lease of a minute: the clock moves past it and signatures still verify (5 minutes' tolerance).
let now = Date.now()
const t = await createTestApp({
  env: {
    HERALD_WEBHOOK_ALLOW_PRIVATE: '1',
    HERALD_WEBHOOK_CONCURRENCY: '1',
    HERALD_WEBHOOK_LEASE_MS: '60000',
  },
  clock: { now: () => now },
})
const LEASE = t.ctx.config.webhookLeaseMs
const a = createWebhookWorker(t.ctx, { schedule: [0], timeoutMs: 5000 })
const b = createWebhookWorker(t.ctx, { schedule: [0], timeoutMs: 5000 })
afterAll(async () => {
  answer()
  await Promise.all([a.stop(), b.stop()])
})

// The receiver holds its answers while `hold` is set (a request stays in flight).
const rx = startReceiver()
let hold: Promise<void> | null = null
let answer = () => {}
const holdAnswers = () => {
  hold = new Promise<void>((resolve) => {
    answer = resolve
  })
}
rx.respond = async () => {
  await hold
  return new Response(null, { status: 204 })
}
afterAll(() => rx.close())

const { produce, contactOf } = await unsubscribeEvents(t, rx.url, 'Lanes')
/** Each request verified; its webhook-id and contact id. */
const arrivals = () => rx.received.map(contactOf)

const lanesHeld = async () => await t.ctx.db.select().from(webhookLanes)
const succeededCount = async () =>
  (await t.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.status, 'succeeded'))).length

test('while one worker holds the lane the other claims nothing and sleeps until its lease ends', async () => {
  holdAnswers()
  const first = await produce(5)
  expect((await a.runOnce()).worked).toBe(true)
  await until(() => rx.received.length === 1, 5000, 'the first request')
  const second = await produce(5)

  const pass = await b.runOnce()
  expect(pass.worked).toBe(false)
  expect(pass.nextAt).toBe(now + LEASE)
  expect(rx.received).toHaveLength(1)

  answer()
  await a.drain()
  await b.drain()
  const got = arrivals()
  expect(got.map((r) => r.contact)).toEqual([...first, ...second])
  expect(new Set(got.map((r) => r.id)).size).toBe(10)
  // The lane was given up when it emptied: free for either at once.
  expect(await lanesHeld()).toEqual([])
})

test('a holder that dies keeps the lane until its lease ends; then the other takes it over', async () => {
  rx.received.length = 0
  holdAnswers()
  const ids = await produce(3)
  const first = ids[0]!
  await a.runOnce()
  await until(() => rx.received.length === 1, 5000, 'the first request')
  const inFlight = arrivals()[0]!
  expect(inFlight.contact).toBe(first)

  // The holder dies with that request open and two deliveries queued.
  expect((await b.runOnce()).worked).toBe(false)
  now += LEASE - 1
  expect((await b.runOnce()).worked).toBe(false)
  expect(rx.received).toHaveLength(1)

  now += 1
  const dead = hold
  hold = null
  await b.drain()
  const got = arrivals()
  // The one in flight at the death comes again (same webhook-id), then the rest, in order.
  expect(got.map((r) => r.contact)).toEqual([first, ...ids])
  expect(got[1]!.id).toBe(inFlight.id)
  expect(new Set(got.slice(1).map((r) => r.id)).size).toBe(3)
  expect(await lanesHeld()).toEqual([])

  hold = dead
  const stopping = a.stop()
  answer()
  await stopping
  await b.stop()
  expect(rx.received).toHaveLength(4)
})

test('rows a slow endpoint kept queued until their lease nearly ended go back and are claimed again, renewing the lane', async () => {
  rx.received.length = 0
  const c = createWebhookWorker(t.ctx, { schedule: [0], timeoutMs: 5000 })
  const d = createWebhookWorker(t.ctx, { schedule: [0], timeoutMs: 5000 })
  const succeededBefore = await succeededCount()
  holdAnswers()
  const ids = await produce(3)
  await c.runOnce()
  await until(() => rx.received.length === 1, 5000, 'the first request')

  // The first answer comes when less than a timeout of the lease is left: the next row is not
  // started on what is left of it, but given back and claimed again with a lease of its own.
  now += LEASE - 1000
  const first = answer
  holdAnswers()
  first()
  await until(
    async () => {
      if (rx.received.length < 2) await c.runOnce()
      return rx.received.length === 2
    },
    5000,
    'the second request',
  )
  // The first's success is written by the worker's next flush, a few milliseconds later on the
  // real clock; the test clock must not pass its lease before that, or any process's lease
  // sweep would rightly take it for lost and send it again.
  await until(async () => (await succeededCount()) === succeededBefore + 1, 5000, 'the first answer recorded')
  // Past the first claim's lease the other worker finds the lane still held, and sends nothing.
  now += 2000
  expect((await d.runOnce()).worked).toBe(false)
  expect(rx.received).toHaveLength(2)

  answer()
  hold = null
  await c.drain()
  await d.drain()
  const got = arrivals()
  expect(got.map((r) => r.contact)).toEqual(ids)
  expect(new Set(got.map((r) => r.id)).size).toBe(3)
  await Promise.all([c.stop(), d.stop()])
})

// A slow endpoint's lane gives back, one statement each, the rows it kept queued until their lease
// nearly ended. A claim of that endpoint meanwhile must not take the newer rows fanned out since
// (not leased) ahead of those still going back. Here the give-back is held at its first row.
test('a claim while late rows are being given back takes them first, then the newer ones', async () => {
  rx.received.length = 0
  const e = createWebhookWorker(t.ctx, { schedule: [0], timeoutMs: 5000 })
  holdAnswers()
  const first = await produce(3)
  await e.runOnce()
  await until(() => rx.received.length === 1, 5000, 'the first request')
  // Fanned out after that claim, so not leased: a claim can take these at any time.
  const newer = await produce(2)

  // The give-back stops at its first row until a claim of the endpoint has asked for rows, or
  // for half a second when the claim waits for the give-back (as it must).
  const q = webhookQueueOf(t.ctx.store)
  const release = q.releaseDelivery
  const claimFor = q.claimForHook
  const gate = Promise.withResolvers<void>()
  let givingBack = false
  q.releaseDelivery = async (...args) => {
    givingBack = true
    await gate.promise
    return await release(...args)
  }
  q.claimForHook = async (...args) => {
    gate.resolve()
    return await claimFor(...args)
  }
  try {
    // The first answer comes with less than a timeout left of the lease: the two rows queued
    // behind it are late, and go back.
    now += LEASE - 1000
    hold = null
    answer()
    await until(() => givingBack, 5000, 'the give-back')
    const pass = e.runOnce()
    setTimeout(() => gate.resolve(), 500)
    await pass
    await e.drain()
  } finally {
    q.releaseDelivery = release
    q.claimForHook = claimFor
  }
  const got = rx.received.map((r) => contactOf(r).contact)
  expect(got).toEqual([...first, ...newer])
  await e.stop()
})

// The same late rows, kept from going back while a claim of their endpoint runs, when that claim
// fails (the database went away mid-claim): they go back at once, not never.
test('late rows a failed claim kept from going back are given back and sent', async () => {
  rx.received.length = 0
  const e = createWebhookWorker(t.ctx, { schedule: [0], timeoutMs: 5000, inFlight: 2 })
  holdAnswers()
  const ids = await produce(3)
  await e.runOnce()
  await until(() => rx.received.length === 2, 5000, 'two requests in flight')

  const q = webhookQueueOf(t.ctx.store)
  const take = q.takeLane
  const active = q.isHookActive
  const claimWaits = Promise.withResolvers<void>()
  const failClaim = Promise.withResolvers<void>()
  let pumped = 0
  q.takeLane = async () => {
    claimWaits.resolve()
    await failClaim.promise
    throw new Error('connection reset')
  }
  q.isHookActive = async (id) => {
    const answer = await active(id)
    pumped++
    return answer
  }
  try {
    // The third row is late by now; a claim of the endpoint (one row queued, room for two) runs.
    now += LEASE - 1000
    const pass = e.runOnce()
    await claimWaits.promise
    hold = null
    answer()
    // Both answers came back and pumped the lane, which left its late row to the claim.
    await until(() => pumped >= 2, 5000, 'the answers pumped the lane')
    await Bun.sleep(10)
    failClaim.resolve()
    await expect(pass).rejects.toThrow('connection reset')
  } finally {
    q.takeLane = take
    q.isHookActive = active
  }
  await e.drain()
  const got = rx.received.map((r) => contactOf(r).contact)
  // The first two were in flight together and may arrive in either order; the late row comes last.
  expect(got.slice(0, 2).toSorted()).toEqual(ids.slice(0, 2).toSorted())
  expect(got.slice(2)).toEqual(ids.slice(2))
  await e.stop()
})

// A holder that stalls past its lease (a long pause, a database that stopped answering) finds,
// when it wakes, its queued rows late and gives them back. By then the other worker has taken the
// lane and claimed those rows: giving them back must leave that claim alone, or they are claimed
// and sent again while the other worker sends them.
test('a holder waking after its lease gives back nothing the other worker has claimed since', async () => {
  rx.received.length = 0
  const stalled = createWebhookWorker(t.ctx, { schedule: [0], timeoutMs: 5000 })
  const other = createWebhookWorker(t.ctx, { schedule: [0], timeoutMs: 5000 })
  holdAnswers()
  const ids = await produce(3)
  await stalled.runOnce()
  await until(() => rx.received.length === 1, 5000, 'the first request')

  // The lease ends with the first request still open: the other worker takes the lane and the
  // three rows, and sends the first again (same webhook-id).
  now += LEASE
  expect((await other.runOnce()).worked).toBe(true)
  await until(() => rx.received.length === 2, 5000, 'the first request again')

  const q = webhookQueueOf(t.ctx.store)
  const release = q.releaseDelivery
  let givenBack = 0
  q.releaseDelivery = async (...args) => {
    await release(...args)
    givenBack++
  }
  try {
    // Both first requests are answered; the next one (the other worker's second row) is held.
    const both = answer
    holdAnswers()
    both()
    // The stalled worker wakes to its answer: its two queued rows are late, and it gives them back.
    await until(() => givenBack === 2, 5000, 'the stalled worker giving its rows back')
  } finally {
    q.releaseDelivery = release
  }
  // Still the other worker's: one in flight, one queued there.
  const pending = await t.ctx.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.status, 'pending'))
  expect(pending).toEqual([])

  hold = null
  answer()
  await stalled.drain()
  await other.drain()
  const got = arrivals()
  expect(got.map((r) => r.contact)).toEqual([ids[0]!, ...ids])
  expect(new Set(got.map((r) => r.id)).size).toBe(3)
  await Promise.all([stalled.stop(), other.stop()])
})

// The stalled holder's own request fails after the other worker, holding the lane now, has sent
// the same delivery with success: that late failure is logged as an attempt but does not mark
// the delivery failed or due again.
test('a failure answered after the lease ran out leaves the other worker’s success standing', async () => {
  rx.received.length = 0
  const stalled = createWebhookWorker(t.ctx, { schedule: [0, 1000], timeoutMs: 5000 })
  const other = createWebhookWorker(t.ctx, { schedule: [0, 1000], timeoutMs: 5000 })
  const late = Promise.withResolvers<void>()
  const onTime = Promise.withResolvers<void>()
  let n = 0
  const respond = rx.respond
  rx.respond = async () => {
    if (n++ === 0) {
      await late.promise
      return new Response('busy', { status: 500 })
    }
    await onTime.promise
    return new Response(null, { status: 204 })
  }
  try {
    hold = null
    const [contact] = await produce(1)
    await stalled.runOnce()
    await until(() => rx.received.length === 1, 5000, 'the stalled worker’s request')
    now += LEASE
    expect((await other.runOnce()).worked).toBe(true)
    await until(() => rx.received.length === 2, 5000, 'the other worker’s request')
    const [delivery] = await t.ctx.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.status, 'sending'))
    const statusNow = async () =>
      (await t.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery!.id)))[0]!
    const attempts = async () =>
      (await t.ctx.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, delivery!.id)))
        .length

    onTime.resolve()
    await until(async () => (await statusNow()).status === 'succeeded', 5000, 'the other worker’s success')
    late.resolve()
    await until(async () => (await attempts()) === 2, 5000, 'the late failure logged')
    expect(await statusNow()).toMatchObject({ status: 'succeeded', attempts: 1, lastStatus: 204 })

    now += 5000
    await stalled.drain()
    await other.drain()
    // Sent twice (the request in flight at the takeover), never a third time. The test clock is
    // past the signatures' tolerance by now: the bodies are read without verifying them.
    const sent = rx.received.map(
      (r) => (JSON.parse(r.body) as { data: { contact_id: string } }).data.contact_id,
    )
    expect(sent).toEqual([contact!, contact!])
  } finally {
    rx.respond = respond
  }
  await Promise.all([stalled.stop(), other.stop()])
})
