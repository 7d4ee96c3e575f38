import { expect, test } from 'bun:test'
import type { SendResult } from '../../src/channels/types'
import { outboxOf } from '../../src/db/outbox'
import { startSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { OUTBOX_RULES } from '../../src/services/campaigns/states'
import { createTestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { eventually } from '../helpers/receiver'
import { allChannels, recordingProvider } from '../helpers/sender'

// A stop (SIGTERM) waits for every batch the worker claimed and records its sends, the lane's
// next batch too, claimed as the one before it ended. Left untracked, the process would exit with
// that batch's sends under way, unrecorded (sent again after the lease) and the rest of it held
// until the lease ran out.

const t = await createTestApp({ env: { HERALD_SEND_CONCURRENCY: '2' } })
const held: (() => void)[] = []
const provider = recordingProvider(
  'capture',
  () =>
    new Promise<SendResult>((resolve) =>
      held.push(() => resolve({ providerMessageId: null, delivered: true })),
    ),
)
const release = () => {
  for (const go of held.splice(0)) go()
}

// One outbox step (the claim, or the read of the claimed rows), called for the next batch once
// it answered rows for the first, waits until the test lets it go.
const outbox = outboxOf(t.ctx.store, OUTBOX_RULES)
const holding = { step: '', armed: false, held: false, gate: Promise.withResolvers<void>() }
for (const step of ['claimCampaign', 'claimedRows'] as const) {
  const real = outbox[step] as (...args: unknown[]) => Promise<unknown>
  ;(outbox[step] as (...args: unknown[]) => Promise<unknown>) = async (...args) => {
    if (holding.step === step && holding.armed && !holding.held) {
      holding.held = true
      await holding.gate.promise
    }
    const rows = await real(...args)
    if (holding.step === step && (rows as unknown[]).length > 0) holding.armed = true
    return rows
  }
}

test.each([
  'claimedRows',
  'claimCampaign',
])('a stop waits for the batch whose %s was under way', async (step) => {
  Object.assign(holding, { step, armed: false, held: false, gate: Promise.withResolvers<void>() })
  held.length = 0
  const before = provider.sent.length
  const worker = startSendWorker(t.ctx, sendDeps, {
    providers: allChannels(provider),
    batchSize: 2,
    pollMs: 10,
  })
  const emails = ['a', 'b', 'c', 'd'].map((n) => `${n}@${step.toLowerCase()}.example`)
  const s = await campaignTenant(t, emails, { name: step })
  const stats = async () => await s.call('GET', `/api/v1/campaigns/${s.campaign.id}/stats`)
  await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })

  // The first batch's two sends are under way and the next batch's step is held; the first ends.
  await eventually(async () => expect([held.length, holding.held]).toEqual([2, true]))
  release()
  await eventually(async () => expect(await stats()).toMatchObject({ sent: 2 }))

  // Stopping now: the held step goes on a moment later, then the next batch's sends end.
  let released = false
  setTimeout(async () => {
    holding.gate.resolve()
    await eventually(async () => expect(held.length).toBe(2))
    released = true
    release()
  }, 200)
  await worker.stop()
  expect(released).toBe(true)
  expect(provider.sent.length - before).toBe(4)
  expect(await stats()).toMatchObject({ sent: 4 })
}, 20_000)
