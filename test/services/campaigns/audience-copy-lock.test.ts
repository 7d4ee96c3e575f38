import { expect, test } from 'bun:test'
import { SQL } from 'bun'
import { DIALECT } from '../../../src/db/dialect'
import { snapshotChunk } from '../../../src/services/campaigns/audience'
import { createTestApp } from '../../helpers/app'
import { campaignTenant, messagesOf } from '../../helpers/campaign'
import { untilOneWaitsOnLock } from '../../helpers/pg-database'

// Two processes on one PostgreSQL copying the same campaign's audience take turns on the
// campaign's row: the second waits for the first's chunk and reads the cursor it moved, so no
// chunk is copied twice and the A/B groups are drawn once. (On SQLite one process holds the only
// writer; there is no second copier.)

const t = await createTestApp()

test.if(DIALECT === 'postgres')(
  'a copy waits for another process copying the same campaign, then reads its cursor',
  async () => {
    const s = await campaignTenant(t, ['one@example.com', 'two@example.com'])
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    const other = new SQL({ url: t.ctx.config.databaseUrl!, max: 2 })
    const watch = new SQL({ url: t.ctx.config.databaseUrl!, max: 1 })
    let copying: Promise<boolean> | undefined
    try {
      // The other process is mid-chunk: it holds the campaign's row and has copied everything.
      await other.begin(async (tx) => {
        await tx`SELECT 1 FROM campaigns WHERE id = ${s.campaign.id} FOR UPDATE`
        copying = snapshotChunk(t.ctx, s.campaign.id)
        await untilOneWaitsOnLock(watch, 'the copy waits on the row')
        await tx`UPDATE campaigns SET snapshot_done = true, snapshot_cursor = 'zzzzzzzz' WHERE id = ${s.campaign.id}`
      })
      expect(await copying!).toBe(true)
      // What it found was done: it copied nothing of its own.
      expect(await messagesOf(t, s.campaign.id)).toHaveLength(0)
    } finally {
      await other.close()
      await watch.close()
    }
  },
)
