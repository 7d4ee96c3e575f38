import { expect, test } from 'bun:test'
import { SQL } from 'bun'
import { DIALECT } from '../../../src/db/dialect'
import { AUDIENCE_COPY_LOCK } from '../../../src/db/postgres/lock-keys'
import { snapshotChunk } from '../../../src/services/campaigns/audience'
import { failCampaign } from '../../../src/services/campaigns/launch'
import { createTestApp } from '../../helpers/app'
import { campaignTenant, messagesOf } from '../../helpers/campaign'
import { untilOneWaitsOnLock } from '../../helpers/pg-database'

// Two processes on one PostgreSQL copying the same campaign's audience take turns on a lock of
// its own, not on the campaign's row (every send counts on that row): while one copies, the
// other's copy answers at once and copies nothing, and its next one reads the cursor the first
// moved, so no chunk is copied twice and the A/B groups are drawn once. (On SQLite one process
// holds the only writer; there is no second copier.)

const t = await createTestApp()

test.if(DIALECT === 'postgres')(
  'a copy leaves the campaign to another process copying it, then reads its cursor',
  async () => {
    const s = await campaignTenant(t, ['one@example.com', 'two@example.com'])
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    const other = new SQL({ url: t.ctx.config.databaseUrl!, max: 1 })
    try {
      // The other process is mid-chunk: it holds the copy's lock and has copied everything.
      await other.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${AUDIENCE_COPY_LOCK}::int, hashtext(${s.campaign.id}))`
        expect(await snapshotChunk(t.ctx, s.campaign.id)).toBe('elsewhere')
        await tx`UPDATE campaigns SET snapshot_done = true, snapshot_cursor = 'zzzzzzzz' WHERE id = ${s.campaign.id}`
      })
      expect(await messagesOf(t, s.campaign.id)).toHaveLength(0)
      // Its copy committed: this process finds the snapshot complete and copies nothing of its own.
      expect(await snapshotChunk(t.ctx, s.campaign.id)).toBe('done')
      expect(await messagesOf(t, s.campaign.id)).toHaveLength(0)
    } finally {
      await other.close()
    }
  },
)

test.if(DIALECT === 'postgres')(
  'a campaign failed while another process copies a chunk waits for the chunk, then drops it too',
  async () => {
    const s = await campaignTenant(t, ['five@example.com', 'six@example.com'])
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    const other = new SQL({ url: t.ctx.config.databaseUrl!, max: 1 })
    const watch = new SQL({ url: t.ctx.config.databaseUrl!, max: 1 })
    try {
      let failing: Promise<boolean> | undefined
      await other.begin(async (tx) => {
        // The other process's chunk: the copy's lock, and the audience queued, not committed yet.
        await tx`SELECT pg_advisory_xact_lock(${AUDIENCE_COPY_LOCK}::int, hashtext(${s.campaign.id}))`
        for (const [email, contactId] of Object.entries(s.contacts))
          await tx`INSERT INTO messages (id, client_id, campaign_id, contact_id, channel, to_address, status, next_attempt_at, created_at)
            VALUES (${crypto.randomUUID()}, ${s.clientId}, ${s.campaign.id}, ${contactId}, 'email', ${email}, 'queued', ${Date.now()}, ${Date.now()})`
        failing = failCampaign(t.ctx, s.campaign.id, 'the sender is gone')
        await untilOneWaitsOnLock(watch, 'the failure waits for the chunk')
      })
      expect(await failing!).toBe(true)
      expect((await messagesOf(t, s.campaign.id)).map((m) => m.status)).toEqual(['cancelled', 'cancelled'])
      // Nothing more is copied for it.
      expect(await snapshotChunk(t.ctx, s.campaign.id)).toBe('done')
      expect(await messagesOf(t, s.campaign.id)).toHaveLength(2)
    } finally {
      await other.close()
      await watch.close()
    }
  },
)

test('with nobody else copying, a copy copies the audience', async () => {
  const s = await campaignTenant(t, ['three@example.com', 'four@example.com'])
  await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
  expect(await snapshotChunk(t.ctx, s.campaign.id)).toBe('done')
  expect(await messagesOf(t, s.campaign.id)).toHaveLength(2)
})
