import { afterAll, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { outboxOf } from '../../src/db/outbox'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { snapshotChunk } from '../../src/services/campaigns/audience'
import { OUTBOX_RULES } from '../../src/services/campaigns/states'
import { enqueueMessage } from '../../src/services/messages/enqueue'
import { createTestApp } from '../helpers/app'
import { campaignTenant, messagesOf } from '../helpers/campaign'
import { rowOf } from '../helpers/raw-sql'
import { allChannels, recordingProvider } from '../helpers/sender'

// Two processes may share one database: a send worker starting up takes over only the messages
// whose lease ran out (their process died), never those another process holds under a live lease.

let now = Date.parse('2026-03-02T10:00:00Z')
const t = await createTestApp({ clock: { now: () => now } })
const LEASE = t.ctx.config.sendLeaseMs
const outbox = outboxOf(t.ctx.store, OUTBOX_RULES)

const statusOf = async (id: string) =>
  (await rowOf<{ status: string }>(t, sql`SELECT status FROM messages WHERE id = ${id}`))!.status

test('at start-up a message leased by a live process is left alone; one whose lease ran out is sent', async () => {
  const s = await campaignTenant(t, ['dead@example.com', 'live@example.com'])
  const enqueue = async (email: string) =>
    await enqueueMessage(t.ctx, {
      clientId: s.clientId,
      contactId: s.contacts[email]!,
      subject: 'Receipt',
      bodyText: 'Thanks',
    })
  // A process claims the first message and dies; half a lease later another claims the second.
  const dead = await enqueue('dead@example.com')
  expect(await outbox.claimTransactional(now, now + LEASE, 10)).toHaveLength(1)
  now += LEASE / 2
  const live = await enqueue('live@example.com')
  expect(await outbox.claimTransactional(now, now + LEASE, 10)).toHaveLength(1)

  // This process starts when the dead one's lease has run out.
  now += LEASE / 2
  const provider = recordingProvider()
  const worker = createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider), pollMs: 10 })
  afterAll(() => worker.stop())
  await worker.drain()
  expect(provider.sent.map((m) => m.id)).toEqual([dead.id])
  expect(await statusOf(dead.id)).toBe('delivered')
  expect(await statusOf(live.id)).toBe('sending')

  // The live one's process dies too: once its lease runs out, it is sent here, with its own id.
  now += LEASE / 2
  await worker.drain()
  expect(provider.sent.map((m) => m.id)).toEqual([dead.id, live.id])
  expect(await statusOf(live.id)).toBe('delivered')
})

test('a message whose lease runs out after its campaign was cancelled is cancelled, not queued', async () => {
  const s = await campaignTenant(t, ['gone@example.com'])
  await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
  // A process copies the audience and claims the message, then dies mid-send; the campaign is
  // cancelled meanwhile.
  await snapshotChunk(t.ctx, s.campaign.id)
  expect(await outbox.claimCampaign(s.campaign.id, now, now + LEASE, 10)).toHaveLength(1)
  await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/cancel`)
  const [message] = await messagesOf(t, s.campaign.id)

  const provider = recordingProvider()
  const worker = createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider), pollMs: 10 })
  afterAll(() => worker.stop())
  await worker.drain()
  expect(await statusOf(message!.id)).toBe('sending')
  now += LEASE
  await worker.drain()
  expect(await statusOf(message!.id)).toBe('cancelled')
  expect(provider.sent).toEqual([])
})
