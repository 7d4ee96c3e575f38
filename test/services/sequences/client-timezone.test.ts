import { afterAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { messages } from '../../../src/db/schema'
import { sequenceApp } from '../../helpers/sequence'

// A sequence's sending window is read in the contact's time zone, else its client's, else UTC
// (DESIGN §7 Sequence). The client's zone is set through the API; the injected clock moves to
// a minute before and to the opening (no sleeping).

const s = await sequenceApp()
const { t, clock } = s
afterAll(() => s.close())
const MINUTE = 60_000
let n = 0
const person = (extra: Record<string, unknown> = {}) => s.contact(`p${n++}@example.com`, extra)
const sentTo = async (sequenceId: string, contactId: string) =>
  (await t.ctx.db.select().from(messages).where(eq(messages.sourceId, sequenceId))).filter(
    (m) => m.contactId === contactId,
  ).length
const window = { days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' }
const oneStep = {
  steps: [{ subject: 'Hello', body_text: 'Hi', delay: 'PT0S' }],
  settings: { sending_window: window },
}
const setClientZone = async (timezone: string | null) => {
  const r = await t.call('PATCH', `/api/v1/clients/${s.clientId}`, { body: { timezone } })
  expect(r.status).toBe(200)
}

describe("sending window in the client's time zone", () => {
  test('a contact without a zone in a New York client waits for 09:00 New York time; its own zone wins', async () => {
    // Monday 10:00 UTC: 05:00 in New York (window closed), 11:00 in Paris (open).
    clock.t = Date.parse('2027-01-04T10:00:00.000Z')
    await setClientZone('America/New_York')
    const plain = await person()
    const paris = await person({ timezone: 'Europe/Paris' })
    const id = await s.sequence(oneStep)
    await s.enroll(id, [plain, paris])
    await s.settle()
    expect(await sentTo(id, paris)).toBe(1)
    expect(await sentTo(id, plain)).toBe(0)
    expect((await s.runOf(id, plain)).next_run_at).toBe('2027-01-04T14:00:00.000Z')
    clock.t = Date.parse('2027-01-04T14:00:00.000Z') - MINUTE
    await s.settle()
    expect(await sentTo(id, plain)).toBe(0)
    clock.t += MINUTE
    await s.settle()
    expect(await sentTo(id, plain)).toBe(1)
  })

  test('with the zone cleared the window is UTC again', async () => {
    // Tuesday 08:00 UTC (03:00 in New York): UTC opens at 09:00, New York would at 14:00.
    clock.t = Date.parse('2027-01-05T08:00:00.000Z')
    await setClientZone(null)
    const c = await person()
    const id = await s.sequence(oneStep)
    await s.enroll(id, [c])
    await s.settle()
    expect((await s.runOf(id, c)).next_run_at).toBe('2027-01-05T09:00:00.000Z')
  })
})
