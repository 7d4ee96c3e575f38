import { expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { createFlowExecutor } from '../../../src/services/flows/executor'
import { journeyApp } from '../../helpers/journey'
import { rowOf } from '../../helpers/raw-sql'

// The executor's pass is a time slice: a batch stops at the budget and commits what it stepped
// (the rest stay due), and batches go to the journey whose oldest due run is the oldest, not
// to whichever journey comes first. A budget of 0 makes a pass step exactly one run.

const j = await journeyApp()
const executor = createFlowExecutor(j.t.ctx)
const nodes = [
  { id: 't', type: 'trigger', trigger: 'manual', next: 'w' },
  { id: 'w', type: 'wait', duration: 'P1D', next: 'x' },
  { id: 'x', type: 'exit' },
]
const dueAt = async (journeyId: string) =>
  (await rowOf<{ n: number }>(
    j.t,
    sql`SELECT CAST(count(*) AS INTEGER) AS n FROM flow_runs WHERE flow_id = ${journeyId} AND next_run_at <= ${j.clock.now()}`,
  ))!.n

test('a pass out of budget steps one run and commits it; the rest stay due for the next passes', async () => {
  const id = await j.journey(nodes)
  const people = await Promise.all(['a', 'b', 'c'].map((n) => j.contact(`${n}@slice.example`)))
  await j.enroll(id, people)
  expect(await dueAt(id)).toBe(3)
  const first = await executor.pass(200, 0)
  expect(first.stepped).toBe(1)
  expect(await dueAt(id)).toBe(2)
  expect((await executor.pass(200, 1_000)).stepped).toBe(2)
  expect(await dueAt(id)).toBe(0)
  const waiting = (await j.enrollments(id)).filter((e) => e.current_node === 'w')
  expect(waiting.length).toBe(3)
})

test('the journey whose oldest run is the most overdue goes first, whatever the journeys order', async () => {
  // Created first, so it is listed first; its runs come due a second after the other's.
  const later = await j.journey(nodes)
  const earlier = await j.journey(nodes)
  await j.enroll(earlier, [await j.contact('early@slice.example')])
  j.clock.t += 1_000
  await j.enroll(later, [await j.contact('late@slice.example')])
  expect((await executor.pass(200, 0)).stepped).toBe(1)
  expect(await dueAt(earlier)).toBe(0)
  expect(await dueAt(later)).toBe(1)
  await executor.pass(200, 0)
  expect(await dueAt(later)).toBe(0)
})
