import { afterAll, expect, spyOn, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { sequences } from '../../../src/db/schema'
import type { StepReport } from '../../../src/services/flows/executor'
import { createFlowWorker } from '../../../src/services/flows/worker'
import { journeyTenant } from '../../helpers/journey'
import { rowOf } from '../../helpers/raw-sql'
import { sequenceApp } from '../../helpers/sequence'

// A pass's report counts committed work only. A batch that throws rolls back (its runs stay
// due, nothing it queued is kept), so its runs are not "stepped" and its messages not "queued":
// counting them made a pass whose only batch failed report work, and the worker ran again at
// once instead of sleeping until the hold ends. A sequence whose step throws (stored
// data from before a check existed) beside a healthy one of another tenant, both due, one pass.

const s = await sequenceApp()
const { t } = s
const other = await journeyTenant(t, 'Other tenant')
const failed = spyOn(t.ctx.log, 'error')
// Every error logged, by message: a failure names the unexpected ones.
const errorsLogged = () => failed.mock.calls.map((c) => c[0] as string)
const stepFailures = (n: number) => Array<string>(n).fill('sequence step failed; its due runs wait')
afterAll(async () => {
  failed.mockRestore()
  await s.close()
})
const oneStep = { steps: [{ subject: 'Hello', body_text: 'Hi', delay: 'PT0S' }] }

test('the runs of a batch that threw are not counted as stepped, queued or deferred', async () => {
  const broken = await s.sequence(oneStep)
  // A sending window stored without its days (bypassing the save checks): reading it throws.
  await t.ctx.db
    .update(sequences)
    .set({ sendingWindow: { start: '00:00', end: '23:59' } as never })
    .where(eq(sequences.id, broken))
  await s.enroll(broken, [await s.contact('a@example.com'), await s.contact('b@example.com')])
  const reports: StepReport[] = []
  // A budget every batch of a pass fits in (a PostgreSQL batch alone can take the default 10 ms):
  // the second pass then steps the healthy sequence and tries the broken one again.
  const worker = createFlowWorker(t.ctx, { onPass: (r) => reports.push(r), budgetMs: 5_000 })

  // Only the broken sequence is due: the pass did nothing that committed.
  expect((await worker.runOnce()).worked).toBe(false)
  expect(errorsLogged()).toEqual(stepFailures(1))
  expect(reports[0]).toMatchObject({ stepped: 0, queued: 0, deferred: 0 })
  const queued = await rowOf(
    t,
    sql`SELECT CAST(count(*) AS INTEGER) AS n FROM messages WHERE source_id = ${broken}`,
  )
  expect(queued).toEqual({ n: 0 })

  // With another tenant's sequence due too, only its run counts.
  const healthy = (await other.call('POST', '/api/v1/sequences', { name: 'Other', ...oneStep })).id as string
  await other.call('POST', `/api/v1/sequences/${healthy}/activate`)
  await other.call('POST', `/api/v1/sequences/${healthy}/enroll`, {
    contact_ids: [await other.contact('h@example.com')],
  })
  s.clock.t += 1_000 // the broken one's hold ends: both are due, the broken one first
  expect((await worker.runOnce()).worked).toBe(true)
  expect(errorsLogged()).toEqual(stepFailures(2))
  expect(reports[1]).toMatchObject({ stepped: 1, queued: 1, deferred: 0 })
  await worker.stop()
})
