import { afterAll, expect, spyOn, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { journeys } from '../../../src/db/schema'
import type { StepReport } from '../../../src/services/flows/executor'
import { createFlowWorker } from '../../../src/services/flows/worker'
import { journeyApp, journeyTenant } from '../../helpers/journey'
import { rowOf } from '../../helpers/raw-sql'

// A pass's report counts committed work only. A batch that throws rolls back (its runs stay
// due, nothing it queued is kept), so its runs are not "stepped" and its messages not "queued":
// counting them made a pass whose only batch failed report work, and the worker ran again at
// once instead of sleeping until the hold ends. A journey whose step throws (stored
// data from before a check existed) beside a healthy one of another tenant, both due, one pass.

const j = await journeyApp()
const { t } = j
const other = await journeyTenant(t, 'Other tenant')
const failed = spyOn(t.ctx.log, 'error')
// Every error logged, by message: a failure names the unexpected ones.
const errorsLogged = () => failed.mock.calls.map((c) => c[0] as string)
const stepFailures = (n: number) => Array<string>(n).fill('journey step failed; its due runs wait')
afterAll(() => failed.mockRestore())
const trigger = (next: string) => ({ id: 't', type: 'trigger', trigger: 'manual', next })

test('the runs of a batch that threw are not counted as stepped, queued or late', async () => {
  // send → wait: the send queues a message, then the wait (stored before waits were bounded)
  // throws, and the message is rolled back with the rest of the batch.
  const nodes = (duration: string) => [
    trigger('s'),
    { id: 's', type: 'send', template_id: j.templates.welcome.id, next: 'w' },
    { id: 'w', type: 'wait', duration, next: 'x' },
    { id: 'x', type: 'exit' },
  ]
  const broken = await j.journey(nodes('PT1H'))
  await t.ctx.db
    .update(journeys)
    .set({ nodes: nodes('P999999999999W') })
    .where(eq(journeys.id, broken))
  await j.enroll(broken, [await j.contact('a@example.com'), await j.contact('b@example.com')])
  const reports: StepReport[] = []
  // A budget every batch of a pass fits in (a PostgreSQL batch alone can take the default 10 ms):
  // the second pass then steps the healthy journey and tries the broken one again.
  const worker = createFlowWorker(t.ctx, { onPass: (r) => reports.push(r), budgetMs: 5_000 })

  expect((await worker.runOnce()).worked).toBe(false)
  expect(errorsLogged()).toEqual(stepFailures(1))
  expect(reports[0]).toMatchObject({ stepped: 0, queued: 0, webhooks: 0, lateness: [] })
  const queued = await rowOf(
    t,
    sql`SELECT CAST(count(*) AS INTEGER) AS n FROM messages WHERE source_id = ${broken}`,
  )
  expect(queued).toEqual({ n: 0 })

  const healthy = await other.journey([
    trigger('s'),
    { id: 's', type: 'send', template_id: other.templates.welcome.id, next: 'x' },
    { id: 'x', type: 'exit' },
  ])
  await other.enroll(healthy, [await other.contact('h@example.com')])
  j.clock.t += 1_000
  expect((await worker.runOnce()).worked).toBe(true)
  expect(errorsLogged()).toEqual(stepFailures(2))
  expect(reports[1]).toMatchObject({ stepped: 1, queued: 1, webhooks: 0 })
  expect(reports[1]!.lateness).toHaveLength(1)
  await worker.stop()
})
