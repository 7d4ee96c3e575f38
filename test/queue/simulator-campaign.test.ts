import { afterAll, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { createSimulatorProvider } from '../../src/channels/simulator'
import { createFeedback } from '../../src/services/messages/feedback'
import { createTestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { rowsOf } from '../helpers/raw-sql'
import { eventually } from '../helpers/receiver'
import { startTestSender } from '../helpers/sender'

// The simulator's traffic flows back through the same verbs as real traffic: opens, clicks,
// replies and bounces become events, counters and suppressions.

const t = await createTestApp({ env: { HERALD_EMAIL_PROVIDER: 'simulator' } })
let n = 0
const simulator = createSimulatorProvider({
  // The 4th recipient bounces; everyone else opens, clicks and replies.
  rates: { delivered: 1, opened: 1, clicked: 1, bounced: 0, replied: 1 },
  feedback: createFeedback(t.ctx),
  delayMs: 50,
})
const bouncer = createSimulatorProvider({
  rates: { delivered: 0, opened: 0, clicked: 0, bounced: 1, replied: 0 },
  feedback: createFeedback(t.ctx),
  delayMs: 50,
})
const provider = {
  name: 'simulator',
  capabilities: simulator.capabilities,
  send: (m: Parameters<typeof simulator.send>[0]) => (++n === 4 ? bouncer : simulator).send(m),
  close: async () => {
    await simulator.close()
    await bouncer.close()
  },
}
afterAll(() => provider.close())
startTestSender(t, provider)

test('opens, clicks, replies and a bounce arrive as events, counters and a suppression', async () => {
  const emails = ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com']
  const s = await campaignTenant(t, emails)
  await s.launchAndWait()
  await eventually(async () =>
    expect(await s.call('GET', `/api/v1/campaigns/${s.campaign.id}/stats`)).toMatchObject({
      sent: 4, // handed to the provider, the bounced one included
      delivered: 3,
      opened: 3,
      clicked: 3,
      replied: 3,
      bounced: 1,
      open_rate: 1,
      click_rate: 1,
    }),
  )
  const types = (
    await rowsOf<{ type: string }>(t, sql`SELECT type FROM events WHERE campaign_id = ${s.campaign.id}`)
  ).map((e) => e.type)
  for (const type of [
    'email.delivered',
    'email.opened',
    'email.clicked',
    'reply.received',
    'email.bounced',
    'campaign.complete',
  ])
    expect(types).toContain(type)
  const replies = (await t.call('GET', '/api/v1/replies', { key: s.key })).body.data
  expect(replies).toHaveLength(3)
  const bounced = await s.call('GET', '/api/v1/messages?status=bounced')
  expect(bounced).toHaveLength(1)
  const sup = (await t.call('GET', '/api/v1/suppressions', { key: s.key })).body.data
  expect(sup).toContainEqual(expect.objectContaining({ email: bounced[0].to, source: 'hard_bounce' }))
}, 15_000)
