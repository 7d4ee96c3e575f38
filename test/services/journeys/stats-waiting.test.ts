import { expect, test } from 'bun:test'
import { journeyApp } from '../../helpers/journey'

// GET /journeys/{id}/stats `nodes[].waiting` and the enrollments' `current_node` tell the same
// story: a contact parked in a `wait` is waiting at the wait (its run already points at the node
// after it, where it resumes), as one in a `wait_for_event` is at that node. Driven by the
// injected clock: the worker runs pass by pass, the clock is moved instead of slept.

const j = await journeyApp()
const HOUR = 3_600_000

type NodeStats = { id: string; passed: number; waiting: number }
const stats = async (id: string) => {
  const s = await j.call('GET', `/api/v1/journeys/${id}/stats`)
  return Object.fromEntries((s.nodes as NodeStats[]).map((n) => [n.id, n]))
}
/** Active enrollments per current_node, as the enrollments list says. */
const atNodes = async (id: string) => {
  const at: Record<string, number> = {}
  for (const e of await j.enrollments(id))
    if (e.status === 'active' && e.current_node) at[e.current_node] = (at[e.current_node] ?? 0) + 1
  return at
}
const waitingOf = (s: Record<string, NodeStats>) =>
  Object.fromEntries(Object.values(s).flatMap((n) => (n.waiting ? [[n.id, n.waiting]] : [])))

test('contacts parked in a wait count as waiting at the wait, then at the next node once it is over', async () => {
  const id = await j.journey([
    { id: 't', type: 'trigger', trigger: 'manual', next: 'w' },
    { id: 'w', type: 'wait', duration: 'P1D', next: 'e' },
    { id: 'e', type: 'wait_for_event', event: 'clicked', timeout: 'P2D', on_event: 'x', on_timeout: 'x' },
    { id: 'x', type: 'exit' },
  ])
  await j.enroll(id, [await j.contact('a@wait.example'), await j.contact('b@wait.example')])
  await j.settle()

  let s = await stats(id)
  expect(s.w!.waiting).toBe(2)
  expect(s.e!.waiting).toBe(0)
  expect(s.x!.waiting).toBe(0)
  expect(s.w!.passed).toBe(2)
  expect(waitingOf(s)).toEqual(await atNodes(id))
  expect(await atNodes(id)).toEqual({ w: 2 })

  // Still inside the wait: nothing moves.
  j.clock.t += 23 * HOUR
  await j.settle()
  expect(waitingOf(await stats(id))).toEqual({ w: 2 })

  // Past the wait: both go on to the wait_for_event and wait there.
  j.clock.t += 2 * HOUR
  await j.settle()
  s = await stats(id)
  expect(s.w!.waiting).toBe(0)
  expect(s.e!.waiting).toBe(2)
  expect(s.e!.passed).toBe(2)
  expect(s.x!.waiting).toBe(0)
  expect(waitingOf(s)).toEqual(await atNodes(id))

  // Past the timeout: both leave through the exit; nobody waits anywhere.
  j.clock.t += 2 * 24 * HOUR + HOUR
  await j.settle()
  s = await stats(id)
  expect(waitingOf(s)).toEqual({})
  expect(s.x!.passed).toBe(2)
  expect(await atNodes(id)).toEqual({})
  expect(await j.call('GET', `/api/v1/journeys/${id}/stats`)).toMatchObject({ active: 0, completed: 2 })
})

test('an enrollment not yet stepped waits at the trigger, where the enrollments list puts it', async () => {
  const id = await j.journey([
    { id: 't', type: 'trigger', trigger: 'manual', next: 'w' },
    { id: 'w', type: 'wait', duration: 'PT1H', next: 'x' },
    { id: 'x', type: 'exit' },
  ])
  await j.enroll(id, [await j.contact('fresh@wait.example')])
  const s = await stats(id)
  expect(waitingOf(s)).toEqual({ t: 1 })
  expect(waitingOf(s)).toEqual(await atNodes(id))
})
