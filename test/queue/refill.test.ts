import { afterAll, expect, test } from 'bun:test'
import type { SendResult } from '../../src/channels/types'
import { startSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createTestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { eventually } from '../helpers/receiver'
import { allChannels, recordingProvider } from '../helpers/sender'

// The running send loop claims a lane's next batch as soon as its batch has started its last
// send (issue 15): the lane's sends in flight stay at HERALD_SEND_CONCURRENCY across batches,
// never above it, instead of draining to none at the end of each batch. The provider holds
// every send until the test lets it go, so "in flight" is exact.

const CONCURRENCY = 4
const t = await createTestApp({ env: { HERALD_SEND_CONCURRENCY: String(CONCURRENCY) } })
const held: { to: string; go: () => void }[] = []
const provider = recordingProvider(
  'capture',
  (m) =>
    new Promise<SendResult>((resolve) =>
      held.push({ to: m.to, go: () => resolve({ providerMessageId: null, delivered: true }) }),
    ),
)
// Batches of 10: the 30 recipients take three, so two batch boundaries are crossed.
const worker = startSendWorker(t.ctx, sendDeps, {
  providers: allChannels(provider),
  batchSize: 10,
  pollMs: 10,
})
afterAll(() => worker.stop())

test('across batch boundaries the lane keeps exactly HERALD_SEND_CONCURRENCY sends in flight', async () => {
  const emails = Array.from({ length: 30 }, (_, i) => `r${i}@refill.example`)
  const s = await campaignTenant(t, emails)
  await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })

  // One send is let go at a time, oldest first; after each, the place it left is taken again
  // (by the next batch's first sends at a boundary) until fewer than CONCURRENCY remain.
  for (let remaining = emails.length; remaining > 0; remaining--) {
    await eventually(async () => expect(held.length).toBe(Math.min(CONCURRENCY, remaining)))
    held.shift()!.go()
  }
  await eventually(async () => expect(await s.status()).toBe('sent'))
  const to = provider.sent.map((m) => m.to)
  expect(to).toHaveLength(30)
  expect(new Set(to)).toEqual(new Set(emails))
  expect(await s.call('GET', `/api/v1/campaigns/${s.campaign.id}/stats`)).toMatchObject({
    sent: 30,
    delivered: 30,
  })
}, 30_000)
