import { afterAll, expect, test } from 'bun:test'
import { outboxOf } from '../../src/db/outbox'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { OUTBOX_RULES } from '../../src/services/campaigns/states'
import { enqueueMessage } from '../../src/services/messages/enqueue'
import { createTestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { allChannels, recordingProvider } from '../helpers/sender'

// An idle send worker sleeps until its next work comes due. A message another process holds comes
// due when that lease runs out (the process died): the worker wakes then, not at its next poll.

let now = Date.parse('2026-03-02T10:00:00Z')
const t = await createTestApp({ clock: { now: () => now } })
const LEASE = t.ctx.config.sendLeaseMs
const outbox = outboxOf(t.ctx.store, OUTBOX_RULES)

test("an idle worker's next pass is due when another process's lease runs out", async () => {
  const s = await campaignTenant(t, ['held@example.com'])
  const held = await enqueueMessage(t.ctx, {
    clientId: s.clientId,
    contactId: s.contacts['held@example.com']!,
    subject: 'Receipt',
    bodyText: 'Thanks',
  })
  // Another process claims it (and will die holding it).
  expect(await outbox.claimTransactional(now, now + LEASE, 10)).toHaveLength(1)
  const leaseEnd = now + LEASE

  const provider = recordingProvider()
  const worker = createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider), pollMs: 10 })
  afterAll(() => worker.stop())
  now += 1_000
  const idle = await worker.runOnce()
  expect(idle).toEqual({ worked: false, nextAt: leaseEnd })

  now = leaseEnd
  await worker.drain()
  expect(provider.sent.map((m) => m.id)).toEqual([held.id])
  expect(await worker.runOnce()).toEqual({ worked: false, nextAt: null })
})
