import { expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { createTestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { rowOf } from '../helpers/raw-sql'
import { eventually } from '../helpers/receiver'
import { recordingProvider, startTestSender } from '../helpers/sender'

// The audience is copied into the outbox by the worker after launch. The copy belongs to the
// launch: it goes on while the campaign is paused, and a list deleted before it finished fails
// the campaign instead of quietly sending to fewer people.

const t = await createTestApp()
const counts = async (campaignId: string) =>
  await rowOf<{ n: number; done: number }>(
    t,
    sql`SELECT CAST((SELECT count(*) FROM messages WHERE campaign_id = ${campaignId}) AS INTEGER) AS n,
      CAST((SELECT snapshot_done FROM campaigns WHERE id = ${campaignId}) AS INTEGER) AS done`,
  )

test('launched then paused before any copy: the copy still completes while paused', async () => {
  const s = await campaignTenant(t, ['a@example.com', 'b@example.com', 'c@example.com'])
  await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
  await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/pause`)
  expect(await counts(s.campaign.id)).toEqual({ n: 0, done: 0 }) // no worker yet
  const doomed = await campaignTenant(t, ['d@example.com'])
  await doomed.call('POST', `/api/v1/campaigns/${doomed.campaign.id}/launch`, { confirm: true })
  await doomed.call('POST', `/api/v1/campaigns/${doomed.campaign.id}/pause`)
  await doomed.call('DELETE', `/api/v1/lists/${doomed.list.id}`)

  const provider = recordingProvider()
  startTestSender(t, provider)
  await eventually(async () => expect(await counts(s.campaign.id)).toEqual({ n: 3, done: 1 }))
  expect(await s.status()).toBe('paused')
  expect(provider.sent).toHaveLength(0)
  await s.launchAndWait()
  expect(provider.sent.map((m) => m.to).sort()).toEqual(['a@example.com', 'b@example.com', 'c@example.com'])

  // The one whose list went away stays paused; resuming it fails it with the reason.
  expect(await doomed.status()).toBe('paused')
  await doomed
    .call('POST', `/api/v1/campaigns/${doomed.campaign.id}/launch`, { confirm: true })
    .catch(() => {})
  await eventually(async () => expect(await doomed.status()).toBe('failed'))
  const c = await doomed.call('GET', `/api/v1/campaigns/${doomed.campaign.id}`)
  expect(c.failure_reason).toContain('list')
})
