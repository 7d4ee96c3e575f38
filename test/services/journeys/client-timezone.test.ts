import { describe, expect, test } from 'bun:test'
import { journeyApp, journeyTenant } from '../../helpers/journey'

// A wait `until` a time of day reads the contact's time zone, else its client's, else UTC
// (DESIGN §7 Journey, issue 11). The client's zone is set through the API and comes into the
// executor with the journey it steps; each test moves the injected clock, never sleeps.

const j = await journeyApp()
const { t, clock } = j
const HOUR = 3_600_000
const exit = { id: 'x', type: 'exit' }
const waitUntil9 = [
  { id: 't', type: 'trigger', trigger: 'manual', next: 'w' },
  { id: 'w', type: 'wait', until: '09:00', next: 'x' },
  exit,
]
let n = 0
const setClientZone = async (clientId: string, timezone: string | null) => {
  const r = await t.call('PATCH', `/api/v1/clients/${clientId}`, { body: { timezone } })
  expect(r.status).toBe(200)
  expect(r.body.data.timezone).toBe(timezone)
}

describe("wait until HH:MM in the client's time zone", () => {
  test("a contact without a zone in a New York client waits for 09:00 New York time, not UTC; its own zone wins; another client's stays UTC", async () => {
    clock.t = Date.parse('2026-11-24T10:00:00.000Z') // 05:00 in New York, 19:00 in Tokyo
    await setClientZone(j.clientId, 'America/New_York')
    const plain = await j.contact(`p${n++}@example.com`)
    const tokyo = await j.contact(`p${n++}@example.com`, { timezone: 'Asia/Tokyo' })
    const other = await journeyTenant(t, 'Globex') // no zone: UTC
    const elsewhere = await other.contact('g@example.com')

    const id = await j.journey(waitUntil9)
    await j.enroll(id, [plain, tokyo])
    const otherId = await other.journey(waitUntil9)
    await other.enroll(otherId, [elsewhere])
    await j.settle()

    expect((await j.enrollmentOf(id, plain)).next_run_at).toBe('2026-11-24T14:00:00.000Z')
    expect((await j.enrollmentOf(id, tokyo)).next_run_at).toBe('2026-11-25T00:00:00.000Z')
    expect((await other.enrollmentOf(otherId, elsewhere)).next_run_at).toBe('2026-11-25T09:00:00.000Z')

    // A minute before 09:00 in New York the contact still waits; at 09:00 it goes on.
    clock.t = Date.parse('2026-11-24T13:59:00.000Z')
    await j.settle()
    expect((await j.enrollmentOf(id, plain)).status).toBe('active')
    clock.t += 60_000
    await j.settle()
    const done = await j.enrollmentOf(id, plain)
    expect(done.status).toBe('completed')
    expect(done.history.map((h) => h.node)).toEqual(['t', 'w', 'x'])
    expect((await other.enrollmentOf(otherId, elsewhere)).status).toBe('active')
  })

  test("a change of the client's zone applies to the next wait; cleared, it is UTC again", async () => {
    clock.t = Date.parse('2026-12-01T10:00:00.000Z')
    await setClientZone(j.clientId, 'Asia/Kolkata') // 15:30 there: 09:00 tomorrow is 03:30 UTC
    const a = await j.contact(`p${n++}@example.com`)
    const id = await j.journey(waitUntil9)
    await j.enroll(id, [a])
    await j.settle()
    expect((await j.enrollmentOf(id, a)).next_run_at).toBe('2026-12-02T03:30:00.000Z')

    await setClientZone(j.clientId, null)
    clock.t += HOUR
    const b = await j.contact(`p${n++}@example.com`)
    await j.enroll(id, [b])
    await j.settle()
    expect((await j.enrollmentOf(id, b)).next_run_at).toBe('2026-12-02T09:00:00.000Z')
  })
})
