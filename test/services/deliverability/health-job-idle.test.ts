import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { DIALECT } from '../../../src/db/dialect'
import { rawRows } from '../../../src/db/raw'
import { inTransaction } from '../../../src/db/transaction'
import { registerJobs } from '../../../src/jobs'
import { createSendWorker } from '../../../src/queue/worker'
import { sendDeps } from '../../../src/sending'
import { HEALTH_CHECK_INTERVAL_MS } from '../../../src/services/deliverability/health-debounce'
import { recordComplaint } from '../../../src/services/messages/activity'
import { createTestApp } from '../../helpers/app'
import { sentAndSending } from '../../helpers/campaign'
import { allChannels, recordingProvider } from '../../helpers/sender'

// The `deliverability.health` job fires every 5 s. A firing with nothing pending is skipped: no
// transaction, no job run stored (it wrote both every 5 s before). The process's first firing
// still runs (it looks for checks a killed process put off), and a burst's put-off check still
// runs at the first firing after its client's interval. Firings are driven through the
// registry's tick (what the schedule calls) on the injected clock.

const clock = { t: Date.parse('2026-11-23T10:00:30.000Z'), now: () => clock.t }
const t = await createTestApp({ clock })
registerJobs(t.ctx)
const worker = createSendWorker(t.ctx, sendDeps, { providers: allChannels(recordingProvider()) })
const fire = () => t.ctx.jobs.tick('deliverability.health')

/**
 * Rows changed on the app's connection since it opened: any write moves it. On PostgreSQL, the
 * next transaction id (any transaction that writes takes one; reading it takes none).
 */
// The writer's count of changed rows (asked inside a transaction: outside one, reads go to the reader).
const changes = async (): Promise<number> =>
  DIALECT === 'postgres'
    ? Number(
        (
          await rawRows<{ n: string }>(
            t.ctx.db,
            sql`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS n`,
          )
        )[0]!.n,
      )
    : await inTransaction(
        t.ctx.sqlite,
        async () => (await rawRows<{ n: number }>(t.ctx.db, sql`SELECT total_changes() AS n`))[0]!.n,
      )
/** The job's runs that ended (each is stored in job_runs by registerJobs' listener). */
let runs = 0
t.ctx.jobs.onRunEnd((run) => {
  if (run.name === 'deliverability.health') runs++
})
const stored = async () =>
  (await rawRows(t.ctx.db, sql`SELECT name FROM job_runs WHERE name = 'deliverability.health'`)).length

async function alerts(key: string) {
  return ((await t.call('GET', '/api/v1/deliverability/alerts', { key })).body.data as { kind: string }[])
    .map((a) => a.kind)
    .sort()
}

describe('deliverability.health skips idle firings', () => {
  test('first firing runs; idle ones write nothing; a pending check still runs after the interval', async () => {
    // A client that sent 1,001 messages, with a second campaign sending.
    const a = await sentAndSending(t, worker, 'p', clock.t)
    const { msgs, second } = a

    // The process's first firing runs (the catch-up sweep) and is recorded.
    expect(await fire()).toBe(true)
    expect(runs).toBe(1)
    expect(await stored()).toBe(1)

    // Idle firings: skipped, nothing written.
    for (let i = 0; i < 3; i++) {
      clock.t += HEALTH_CHECK_INTERVAL_MS
      const before = await changes()
      expect(await fire()).toBe(false)
      expect(await changes()).toBe(before)
    }
    expect(runs).toBe(1)

    // A burst: the first complaint is checked at once, the next three are put off.
    for (const i of [0, 1, 2, 3]) {
      clock.t += 250
      await recordComplaint(t.ctx, msgs[i]!, clock.t)
    }
    expect(await alerts(a.key)).toEqual([])
    // Within the interval the put-off check is not due yet: still skipped, nothing written.
    const before = await changes()
    expect(await fire()).toBe(false)
    expect(await changes()).toBe(before)

    // After it, the firing runs the check (alert and pause) and is recorded.
    clock.t += HEALTH_CHECK_INTERVAL_MS
    expect(await fire()).toBe(true)
    expect(await alerts(a.key)).toEqual(['campaigns_paused', 'complaint_rate'])
    expect((await a.call('GET', `/api/v1/campaigns/${second.id}`)).status).toBe('paused')
    expect(runs).toBe(2)

    // Then idle again.
    clock.t += HEALTH_CHECK_INTERVAL_MS
    const after = await changes()
    expect(await fire()).toBe(false)
    expect(await changes()).toBe(after)
    expect(runs).toBe(2)
  })

  test('"Run now" always runs and is recorded, pending or not', async () => {
    clock.t += 60_000
    const before = await changes()
    await t.ctx.jobs.runNow('deliverability.health')
    expect(runs).toBe(3)
    expect(await changes()).toBeGreaterThan(before)
  })
})
