import { afterAll, expect, test } from 'bun:test'
import { sequenceApp } from '../../helpers/sequence'

// Every enrollment history entry has DESIGN §7's shape {step, message_id, at}: a step skipped
// (an sms step for a contact with no phone) says message_id null rather than leaving it out.

const s = await sequenceApp()
afterAll(() => s.close())

test('a skipped step is in the history with message_id null', async () => {
  const c = await s.contact('nophone@example.com')
  const id = await s.sequence({
    steps: [
      { subject: 'Intro', body_text: 'Hi', delay: 'PT0S' },
      { channel: 'sms', body_text: 'Text', delay: 'PT1H' },
    ],
  })
  await s.enroll(id, [c])
  await s.settle()
  s.clock.t += 60 * 60_000
  await s.settle()
  const run = await s.runOf(id, c)
  expect(run.status).toBe('completed')
  expect(run.history).toHaveLength(2)
  expect(run.history[0]).toMatchObject({ step: 0, channel: 'email' })
  expect(run.history[0]!.message_id).toBeString()
  expect(run.history[1]).toEqual({ step: 1, message_id: null, skipped: 'no_phone', at: run.history[1]!.at })
})
