import { expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { ProviderError, type SendResult } from '../../src/channels/types'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createTestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { rowOf } from '../helpers/raw-sql'
import { until } from '../helpers/receiver'
import { allChannels, recordingProvider } from '../helpers/sender'

// Two send workers on one database stand for two processes. One claims a message and stalls in
// its provider call past the lease (a paused VM, a provider that never answers and a database that
// stopped answering too); the other takes the message over once the lease ran out and sends it.
// The stalled call's answer, when it comes, must not undo or count again what the other wrote:
// the message stays delivered, counted once. Driven on the test clock.

const LEASE_MS = 60_000
const clock = { t: Date.parse('2026-11-29T10:00:00.000Z'), now: () => clock.t }
const t = await createTestApp({ env: { HERALD_SEND_LEASE_MS: String(LEASE_MS) }, clock })

const scenarios: { name: string; late: () => SendResult }[] = [
  {
    name: 'a retryable failure',
    late: () => {
      throw new ProviderError('connection reset', true)
    },
  },
  {
    name: 'a permanent failure',
    late: () => {
      throw new ProviderError('550 no such user', false)
    },
  },
  { name: 'a success', late: () => ({ providerMessageId: 'late', delivered: true }) },
]

for (const s of scenarios)
  test(`${s.name} answered after another worker took the message over leaves its outcome standing`, async () => {
    const stall = Promise.withResolvers<void>()
    let calls = 0
    const provider = recordingProvider('capture', async () => {
      if (++calls === 1) {
        await stall.promise
        return s.late()
      }
      return { providerMessageId: 'on-time', delivered: true }
    })
    const stalled = createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider) })
    const other = createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider) })
    const c = await campaignTenant(t, ['a@example.com'])
    await c.call('POST', `/api/v1/campaigns/${c.campaign.id}/launch`, { confirm: true })
    await until(
      async () => {
        if (calls === 0) void stalled.runOnce()
        return calls === 1
      },
      5000,
      'the stalled call',
    )

    clock.t += LEASE_MS
    await until(
      async () => {
        await other.runOnce()
        return (await c.status()) === 'sent'
      },
      5000,
      'the other worker sending it',
    )
    stall.resolve()
    await stalled.stop()
    await other.stop()

    const message = await rowOf<{ status: string; provider_message_id: string; error: string | null }>(
      t,
      sql`SELECT status, provider_message_id, error FROM messages WHERE campaign_id = ${c.campaign.id}`,
    )
    expect(message).toEqual({ status: 'delivered', provider_message_id: 'on-time', error: null })
    const stats = await c.call('GET', `/api/v1/campaigns/${c.campaign.id}/stats`)
    expect(stats).toMatchObject({ sent: 1, delivered: 1, failed: 0 })
    expect(calls).toBe(2)
  })
