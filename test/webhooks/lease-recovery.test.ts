import { afterAll, expect, test } from 'bun:test'
import { webhookQueueOf } from '../../src/db/webhook-queue'
import { toPrefixedId } from '../../src/lib/ids'
import { fanOut } from '../../src/webhooks/fanout'
import { createWebhookWorker } from '../../src/webhooks/worker'
import { createTestApp } from '../helpers/app'
import { startReceiver } from '../helpers/receiver'

// Two processes may share one database: a webhook worker starting up takes over only the
// deliveries whose lease ran out (their process died), never those another process holds under a
// live lease, its request perhaps still in flight.

let now = Date.parse('2026-03-02T10:00:00Z')
const t = await createTestApp({ env: { HERALD_WEBHOOK_ALLOW_PRIVATE: '1' }, clock: { now: () => now } })
const LEASE = t.ctx.config.webhookLeaseMs

test('at start-up a delivery leased by a live process is left alone; one whose lease ran out is sent', async () => {
  const rx = startReceiver()
  afterAll(() => rx.close())
  const clientId = await t.client('Hooked')
  const key = await t.key({ scopes: ['admin:*'], clientId })
  const hook = (
    await t.call('POST', '/api/v1/webhooks', { key, body: { url: rx.url, events: ['contact.unsubscribed'] } })
  ).body.data
  /** An event, fanned out and its delivery claimed by "another process" until a lease from now. */
  const leasedEvent = async () => {
    const c = (await t.call('POST', '/api/v1/contacts', { key, body: { email: `c${now}@example.com` } })).body
      .data
    expect(
      (await t.call('PATCH', `/api/v1/contacts/${c.id}`, { key, body: { status: 'unsubscribed' } })).status,
    ).toBe(200)
    expect((await fanOut(t.ctx)).created).toBe(1)
    expect(await webhookQueueOf(t.ctx.store).claimForHook(hook.id, now, now + LEASE, 10)).toHaveLength(1)
    return toPrefixedId('contact', c.id)
  }
  // One process claims a delivery and dies; half a lease later another claims the next one.
  const dead = await leasedEvent()
  now += LEASE / 2
  const live = await leasedEvent()

  // This process starts when the dead one's lease has run out.
  now += LEASE / 2
  const worker = createWebhookWorker(t.ctx, { timeoutMs: 1000 })
  afterAll(() => worker.stop())
  await worker.drain()
  const contactsOf = () => rx.received.map((r) => JSON.parse(r.body).data.contact_id)
  expect(contactsOf()).toEqual([dead])
  const statuses = async () =>
    (await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries`, { key })).body.data
      .map((d: { status: string }) => d.status)
      .sort()
  expect(await statuses()).toEqual(['sending', 'succeeded'])

  // The live one's process dies too: once its lease runs out, it is sent here.
  now += LEASE / 2
  await worker.drain()
  expect(contactsOf()).toEqual([dead, live])
  expect(await statuses()).toEqual(['succeeded', 'succeeded'])
})
