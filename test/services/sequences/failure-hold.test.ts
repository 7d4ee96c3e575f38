import { afterAll, expect, spyOn, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { sequences } from '../../../src/db/schema'
import { journeyTenant } from '../../helpers/journey'
import { sequenceApp } from '../../helpers/sequence'

// A sequence whose step fails unexpectedly (here: a sending window stored without its days, as
// data from before windows were checked would be, so reading it throws) must not stop the
// executor for everyone: its batch rolls back and its runs stay due, it is held back with a
// doubling delay (not tried again on every pass), and every other sequence, of every tenant,
// goes on. Once the cause is gone it sends by itself after the hold, and loses no contact.

const s = await sequenceApp()
const { t, clock } = s
const other = await journeyTenant(t, 'Other tenant')
// Each failed attempt is logged once (the executor's onFailure): the count of attempts.
const failed = spyOn(t.ctx.log, 'error')
// Every error logged, by message: a failure names the unexpected ones.
const errorsLogged = () => failed.mock.calls.map((c) => c[0] as string)
const stepFailures = (n: number) => Array<string>(n).fill('sequence step failed; its due runs wait')
afterAll(async () => {
  failed.mockRestore()
  await s.close()
})
const oneStep = { steps: [{ subject: 'Hello', body_text: 'Hi', delay: 'PT0S' }] }
const mailTo = (address: string) => s.sink.received.filter((r) => r.rcptTo.includes(address))
/** Every pass the workers have work for, at the clock's time (settle() would wait out the hold). */
const passes = async () => {
  for (let i = 0; i < 3; i++) await s.sequences.runOnce()
  await s.sequences.drain()
  await s.sender.drain()
}

test('a failing sequence is held back with a doubling delay; another tenant’s sends; the failing one sends when fixed', async () => {
  const broken = await s.sequence(oneStep)
  // Bypasses the save checks.
  await t.ctx.db
    .update(sequences)
    .set({ sendingWindow: { start: '00:00', end: '23:59' } as never })
    .where(eq(sequences.id, broken))
  const healthy = (await other.call('POST', '/api/v1/sequences', { name: 'Other', ...oneStep })).id as string
  await other.call('POST', `/api/v1/sequences/${healthy}/activate`)

  const a = await s.contact('a@example.com')
  const b = await other.contact('b@example.com')
  await s.enroll(broken, [a])
  // The broken sequence's run is due first, so it is picked first.
  clock.t += 1
  await other.call('POST', `/api/v1/sequences/${healthy}/enroll`, { contact_ids: [b] })
  await passes()

  // The other tenant's sequence sent, although the broken one was due first.
  expect(mailTo('b@example.com')).toHaveLength(1)
  // The broken one was tried once; its contact is still in, nothing sent, its step still due.
  expect(errorsLogged()).toEqual(stepFailures(1))
  expect(failed.mock.calls[0]![0]).toBe('sequence step failed; its due runs wait')
  const stuck = await s.runOf(broken, a)
  expect(stuck).toMatchObject({ status: 'active', current_step: null, history: [] })
  expect(stuck.next_run_at).not.toBeNull()
  expect(mailTo('a@example.com')).toHaveLength(0)

  // Held for 1 s: more passes before then do not try it again.
  clock.t += 999
  await passes()
  expect(errorsLogged()).toEqual(stepFailures(1))
  // At the end of the hold it is tried again, fails, and is held for twice as long.
  clock.t += 1
  await passes()
  expect(errorsLogged()).toEqual(stepFailures(2))
  clock.t += 1_999
  await passes()
  expect(errorsLogged()).toEqual(stepFailures(2))
  clock.t += 1
  await passes()
  expect(errorsLogged()).toEqual(stepFailures(3))

  // Fixed (an operator stores the window with its days); after the 4 s hold it sends by itself.
  await t.ctx.db
    .update(sequences)
    .set({ sendingWindow: { start: '00:00', end: '23:59', days: [1, 2, 3, 4, 5, 6, 7] } as never })
    .where(eq(sequences.id, broken))
  clock.t += 3_999
  await passes()
  expect(mailTo('a@example.com')).toHaveLength(0)
  clock.t += 1
  await passes()
  expect(errorsLogged()).toEqual(stepFailures(3))
  expect(mailTo('a@example.com')).toHaveLength(1)
  expect(await s.runOf(broken, a)).toMatchObject({ status: 'completed', current_step: 0 })
})
