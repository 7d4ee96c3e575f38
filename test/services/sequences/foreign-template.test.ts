import { afterAll, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { sequences } from '../../../src/db/schema'
import { journeyTenant } from '../../helpers/journey'
import { sequenceApp } from '../../helpers/sequence'

// A sequence step is rendered from a template of the sequence's own client only. Saving checks
// that, but a step stored before the check (or written around it) could name another client's
// template: the executor must not send that tenant's content, in the body or in the thread's
// subject.

const s = await sequenceApp()
const { t } = s
const other = await journeyTenant(t, 'Other tenant')
afterAll(() => s.close())

test("a step naming another client's template sends nothing of it", async () => {
  const secret = await other.call('POST', '/api/v1/templates', {
    name: 'Secret',
    subject: 'Other tenant secret subject',
    body_text: 'Other tenant secret body',
  })
  const id = await s.sequence({
    steps: [
      { template_id: s.templates.nudge.id, delay: 'PT0S' },
      { template_id: s.templates.nudge.id, delay: 'PT0S' },
    ],
  })
  // Written around the save checks: the first step's template is the other tenant's, and the
  // second step (no subject of its own) would take the thread's subject from it.
  const steps = [
    { channel: 'email', template_id: secret.id, delay: 'PT0S' },
    { channel: 'email', template_id: s.templates.nudge.id, delay: 'PT0S' },
  ]
  await t.ctx.db
    .update(sequences)
    .set({ steps: steps as never })
    .where(eq(sequences.id, id))
  const a = await s.contact('a@example.com')
  await s.enroll(id, [a])
  for (let i = 0; i < 3; i++) {
    await s.sequences.runOnce()
    await s.sequences.drain()
    await s.sender.drain()
  }
  const leaked = s.sink.received.filter((r) => r.raw.toString().includes('Other tenant secret'))
  expect(leaked).toHaveLength(0)
  // The first step's message fails; the second goes out with its own template's subject.
  const [first, second] = (await s.runOf(id, a)).history.map((h) => h.message_id)
  expect((await s.call('GET', `/api/v1/messages/${first}`)).status).toBe('failed')
  expect(s.sink.received).toHaveLength(1)
  expect((await s.call('GET', `/api/v1/messages/${second}`)).subject).toBe('Still there?')
})
