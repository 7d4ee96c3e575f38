import { afterAll, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { webhookQueueOf } from '../../src/db/webhook-queue'
import { toPrefixedId } from '../../src/lib/ids'
import { fanOut } from '../../src/webhooks/fanout'
import { createWebhookWorker } from '../../src/webhooks/worker'
import { createTestApp } from '../helpers/app'
import { startReceiver, until } from '../helpers/receiver'

// A slow endpoint's lane gives back the rows it kept queued until their lease nearly ended, one
// statement each. A claim of that endpoint running meanwhile must not take the newer rows fanned
// out since (which are not leased) ahead of the ones still being given back: the endpoint would
// receive events out of order. Here the give-back is held at its first row while a claim runs.

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
const worker = createWebhookWorker(t.ctx, { schedule: [0], timeoutMs: 5000 })

// The receiver holds its answers until `answer` (then none once `hold` is null).
let answer = () => {}
let hold: Promise<void> | null = new Promise<void>((resolve) => {
  answer = resolve
})
const rx = startReceiver()
rx.respond = async () => {
  await hold
  return new Response(null, { status: 204 })
}
afterAll(async () => {
  answer()
  await worker.stop()
  rx.close()
})

const clientId = await t.client('Give back')
const key = await t.key({ scopes: ['admin:*'], clientId })
const hook = (
  await t.call('POST', '/api/v1/webhooks', { key, body: { url: rx.url, events: ['contact.unsubscribed'] } })
).body.data
const verifier = new Webhook(hook.secret)

let n = 0
async function produce(count: number) {
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const c = (await t.call('POST', '/api/v1/contacts', { key, body: { email: `back${++n}@example.com` } }))
      .body.data
    await t.call('PATCH', `/api/v1/contacts/${c.id}`, { key, body: { status: 'unsubscribed' } })
    ids.push(toPrefixedId('contact', c.id))
  }
  expect((await fanOut(t.ctx)).created).toBe(count)
  return ids
}

test('a claim while late rows are being given back takes them first, then the newer ones', async () => {
  const first = await produce(3)
  await worker.runOnce()
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
  q.releaseDelivery = async (id, at) => {
    givingBack = true
    await gate.promise
    return await release(id, at)
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
    const pass = worker.runOnce()
    setTimeout(() => gate.resolve(), 500)
    await pass
    await worker.drain()
  } finally {
    q.releaseDelivery = release
    q.claimForHook = claimFor
  }
  const got = rx.received.map(
    (r) => (verifier.verify(r.body, r.headers) as { data: { contact_id: string } }).data.contact_id,
  )
  expect(got).toEqual([...first, ...newer])
})
