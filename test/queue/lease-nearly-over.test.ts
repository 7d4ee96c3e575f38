import { afterAll, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import type { Outgoing } from '../../src/channels/types'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createTestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { rowsOf } from '../helpers/raw-sql'
import { until } from '../helpers/receiver'
import { allChannels, recordingProvider } from '../helpers/sender'

// One send at a time per lane, and the first one slow: the batch's other messages wait their
// turn behind it. When their turn comes with less than a send timeout left of their lease, a
// call started then could still run when the lease ends, and another process (or this one) would
// claim and send them again. They go back to the queue unsent instead, and the next claim sends
// them, each once. Driven pass by pass on the test clock.

const LEASE_MS = 60_000
const TIMEOUT_MS = 5_000
const clock = { t: Date.parse('2026-11-29T10:00:00.000Z'), now: () => clock.t }
const t = await createTestApp({
  env: {
    HERALD_SEND_CONCURRENCY: '1',
    HERALD_SEND_TIMEOUT_MS: String(TIMEOUT_MS),
    HERALD_SEND_LEASE_MS: String(LEASE_MS),
  },
  clock,
})

const slow = Promise.withResolvers<void>()
const calls: string[] = []
const provider = recordingProvider('capture', async (m: Outgoing) => {
  calls.push(m.to)
  if (calls.length === 1) await slow.promise
  return { providerMessageId: null, delivered: true }
})
const worker = createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider) })
afterAll(async () => {
  slow.resolve()
  await worker.stop()
})

const statuses = async (campaignId: string) =>
  await rowsOf<{ to: string; status: string; attempts: number }>(
    t,
    sql`SELECT to_address AS "to", status, CAST(attempts AS INTEGER) AS attempts FROM messages
      WHERE campaign_id = ${campaignId} ORDER BY seq`,
  )

test('sends whose turn comes too near their lease end go back unsent and are sent once by the next claim', async () => {
  const emails = ['a@example.com', 'b@example.com', 'c@example.com']
  const c = await campaignTenant(t, emails)
  await c.call('POST', `/api/v1/campaigns/${c.campaign.id}/launch`, { confirm: true })
  // The audience is copied, then the batch claimed; its first send hangs.
  await until(
    async () => {
      if (calls.length === 0) void worker.runOnce()
      return calls.length === 1
    },
    5000,
    'the first send',
  )

  // The slow call answers when less than a timeout is left of the batch's lease.
  clock.t += LEASE_MS - TIMEOUT_MS + 1
  slow.resolve()
  await until(
    async () => (await statuses(c.campaign.id)).filter((m) => m.status === 'queued').length === 2,
    2000,
    'the two late messages back in the queue',
  )
  expect(calls).toEqual(['a@example.com'])
  expect(await statuses(c.campaign.id)).toEqual([
    { to: 'a@example.com', status: 'delivered', attempts: 1 },
    { to: 'b@example.com', status: 'queued', attempts: 0 },
    { to: 'c@example.com', status: 'queued', attempts: 0 },
  ])

  await until(
    async () => {
      await worker.runOnce()
      return (await c.status()) === 'sent'
    },
    5000,
    'the campaign sent',
  )
  expect(calls.toSorted()).toEqual(emails)
  expect((await statuses(c.campaign.id)).map((m) => [m.status, m.attempts])).toEqual([
    ['delivered', 1],
    ['delivered', 1],
    ['delivered', 1],
  ])
})
