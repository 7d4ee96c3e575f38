import { expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { journeys } from '../../../src/db/schema'
import { journeyApp, journeyTenant } from '../../helpers/journey'

// A journey whose step fails unexpectedly (here: a wait stored before waits were bounded, which
// makes its next run time no valid date) must not stop the executor for everyone: its step rolls
// back and its runs stay due, it is held back with a growing delay, and every other journey, of
// every tenant, goes on. Once the cause is gone it resumes by itself and loses no contact.

const j = await journeyApp()
const { t, clock } = j
const other = await journeyTenant(t, 'Other tenant')
const trigger = (next: string) => ({ id: 't', type: 'trigger', trigger: 'manual', next })

test('a failing journey is held back; another tenant’s journey runs; the failing one resumes when fixed', async () => {
  const broken = await j.journey([
    trigger('w'),
    { id: 'w', type: 'wait', duration: 'PT1H', next: 'x' },
    { id: 'x', type: 'exit' },
  ])
  // Bypasses the save checks, as data from before the 365-day bound would.
  const badNodes = JSON.stringify([
    trigger('w'),
    { id: 'w', type: 'wait', duration: 'P999999999999W', next: 'x' },
    { id: 'x', type: 'exit' },
  ])
  const setNodes = async (nodes: string) =>
    await t.ctx.db
      .update(journeys)
      .set({ nodes: JSON.parse(nodes) })
      .where(eq(journeys.id, broken))
  await setNodes(badNodes)
  const healthy = await other.journey([
    trigger('u'),
    { id: 'u', type: 'update_contact', fields: { company: 'Stepped' }, next: 'x' },
    { id: 'x', type: 'exit' },
  ])

  const a = await j.contact('a@example.com')
  const b = await other.contact('b@example.com')
  await j.enroll(broken, [a])
  await other.enroll(healthy, [b])
  await j.settle()

  // The other tenant's journey went all the way, although the broken one was due first.
  expect((await other.enrollmentOf(healthy, b)).status).toBe('completed')
  // The broken journey's contact is still in, at the step that failed, its run still due.
  const stuck = await j.enrollmentOf(broken, a)
  expect(stuck).toMatchObject({ status: 'active', current_node: 't' })
  expect(stuck.next_run_at).not.toBeNull()

  // Fixed (an operator edits the stored graph); after the hold it resumes by itself.
  await setNodes(badNodes.replace('P999999999999W', 'PT1H'))
  clock.t += 1_000
  await j.settle()
  expect((await j.enrollmentOf(broken, a)).current_node).toBe('w')
  clock.t += 3_600_000
  await j.settle()
  expect((await j.enrollmentOf(broken, a)).status).toBe('completed')
})
