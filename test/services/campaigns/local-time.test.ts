import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { rawRows, rawRun } from '../../../src/db/raw'
import { createSendWorker } from '../../../src/queue/worker'
import { sendDeps } from '../../../src/sending'
import { startDueCampaigns } from '../../../src/services/campaigns/launch'
import { createTestApp } from '../../helpers/app'
import { tenant } from '../../helpers/campaign'
import { testClock } from '../../helpers/journey'
import { allChannels, recordingProvider } from '../../helpers/sender'

// A campaign sent at 09:00 in each recipient's zone, on the test clock: the scheduler job and
// the send worker are run pass by pass while the clock moves from one zone's hour to the next.
// Nobody is sent before their 09:00, everybody within a minute after it, and the campaign is
// scheduled until the first zone's hour, sending until the last one's, then sent.

const clock = testClock('2026-03-07T12:00:00.000Z')
const t = await createTestApp({ clock })
const provider = recordingProvider()
const sender = createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider), pollMs: 10 })

const MINUTE = 60_000
const iso = (ms: number) => new Date(ms).toISOString()

/** A client in Chicago with one contact per zone (null: none of its own, so Chicago's). */
async function audience(zones: (string | null)[]) {
  const s = await tenant(t, `Zones ${zones.length}`)
  const zoned = await t.call('PATCH', `/api/v1/clients/${s.clientId}`, {
    body: { timezone: 'America/Chicago' },
  })
  expect(zoned.status).toBe(200)
  const list = await s.call('POST', '/api/v1/lists', { name: 'Everyone' })
  const emails: string[] = []
  for (const [i, timezone] of zones.entries()) {
    const email = `p${i}@zones.example`
    await s.call('POST', '/api/v1/contacts', { email, timezone, list_ids: [list.id] })
    emails.push(email)
  }
  return { ...s, list, emails }
}

/** Moves the clock, then runs what the scheduler and the send worker would do by then. */
async function at(ms: number) {
  clock.t = ms
  await startDueCampaigns(t.ctx)
  await sender.drain()
}

const sentAt = async (campaignId: string) =>
  new Map(
    (
      await rawRows<{ to: string; at: number | string }>(
        t.ctx.db,
        sql`SELECT to_address AS "to", sent_at AS at FROM messages WHERE campaign_id = ${campaignId} AND sent_at IS NOT NULL`,
      )
    ).map((r) => [r.to, Number(r.at)]),
  )

describe('09:00 in a dozen zones, on the day New York springs forward', () => {
  // scheduled_at gives the day: 2026-03-08 in each zone as it reads 12:00 UTC (Auckland is
  // already on the 9th). Each zone's 09:00 that day:
  const due: [string | null, string][] = [
    ['Australia/Sydney', '2026-03-07T22:00:00.000Z'],
    ['Asia/Tokyo', '2026-03-08T00:00:00.000Z'],
    ['Asia/Kathmandu', '2026-03-08T03:15:00.000Z'],
    ['Asia/Kolkata', '2026-03-08T03:30:00.000Z'],
    ['Europe/Berlin', '2026-03-08T08:00:00.000Z'],
    ['Africa/Lagos', '2026-03-08T08:00:00.000Z'],
    ['Europe/London', '2026-03-08T09:00:00.000Z'],
    ['America/Sao_Paulo', '2026-03-08T12:00:00.000Z'],
    ['America/New_York', '2026-03-08T13:00:00.000Z'], // EDT since 07:00 UTC
    [null, '2026-03-08T14:00:00.000Z'], // the client's Chicago, CDT
    ['America/Los_Angeles', '2026-03-08T16:00:00.000Z'],
    ['Pacific/Honolulu', '2026-03-08T19:00:00.000Z'],
    ['Pacific/Auckland', '2026-03-08T20:00:00.000Z'], // 09:00 on the 9th, NZDT
  ]

  test('each recipient gets it within a minute after their 09:00, none before', async () => {
    const s = await audience(due.map(([zone]) => zone))
    const c = await s.call('POST', '/api/v1/campaigns', {
      name: 'Good morning',
      list_id: s.list.id,
      subject: 'Good morning {{ contact.email }}',
      body_html: '<p>Hello</p><a href="{{ unsubscribe_url }}">unsubscribe</a>',
      scheduled_at: '2026-03-08T12:00:00Z',
      send_at_local: '09:00',
    })
    expect(c.send_at_local).toBe('09:00')
    const status = async () => (await s.call('GET', `/api/v1/campaigns/${c.id}`)).status
    const launched = await s.call('POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
    expect(launched).toMatchObject({ status: 'scheduled', total_recipients: due.length })
    await at(clock.t)
    // The copy is done: the campaign starts at its first recipient's hour.
    const scheduled = await s.call('GET', `/api/v1/campaigns/${c.id}`)
    expect(scheduled).toMatchObject({ status: 'scheduled', scheduled_at: due[0]![1], total_recipients: 13 })
    expect(provider.sent).toHaveLength(0)

    const first = Date.parse(due[0]![1])
    const last = Date.parse(due.at(-1)![1])
    const instants = [...new Set(due.map(([, d]) => Date.parse(d)))]
    for (const instant of instants) {
      await at(instant - 1000)
      const sent = await sentAt(c.id)
      for (const [i, [zone, d]] of due.entries()) {
        const when = sent.get(s.emails[i]!)
        if (Date.parse(d) >= instant) expect(when, `${zone} before its 09:00`).toBeUndefined()
      }
      expect(await status()).toBe(instant === first ? 'scheduled' : 'sending')
      await at(instant)
      await at(instant + 30_000)
      expect(await status()).toBe(instant === last ? 'sent' : 'sending')
    }
    const sent = await sentAt(c.id)
    for (const [i, [zone, d]] of due.entries()) {
      const lateness = sent.get(s.emails[i]!)! - Date.parse(d)
      expect(lateness, `${zone}: sent ${iso(sent.get(s.emails[i]!)!)} for ${d}`).toBeGreaterThanOrEqual(0)
      expect(lateness).toBeLessThan(MINUTE)
    }
    const stats = await s.call('GET', `/api/v1/campaigns/${c.id}/stats`)
    expect(stats).toMatchObject({ status: 'sent', total_recipients: 13, sent: 13 })
  })
})

/** A campaign at 09:00 local without scheduled_at, launched now and copied. */
async function launchedAtNine(s: Awaited<ReturnType<typeof audience>>, name: string) {
  const c = await s.call('POST', '/api/v1/campaigns', {
    name,
    list_id: s.list.id,
    subject: name,
    body_text: 'Hello',
    send_at_local: '09:00',
  })
  await s.call('POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
  await at(clock.t)
  return c
}

describe('without scheduled_at: the next 09:00 in each zone after the launch', () => {
  test('pause holds the zones due meanwhile, resume sends them at once, cancel drops the rest', async () => {
    clock.t = Date.parse('2026-10-24T23:00:00.000Z') // Tokyo's 08:00 on the 25th, Berlin's 01:00
    const s = await audience(['Asia/Tokyo', 'Europe/Berlin', 'America/New_York', 'America/Los_Angeles'])
    const c = await launchedAtNine(s, 'Next morning')
    // Tokyo's next 09:00 is in an hour; Berlin's falls on its switch day (CET again by then).
    const tokyo = Date.parse('2026-10-25T00:00:00.000Z')
    const berlin = Date.parse('2026-10-25T08:00:00.000Z')
    const newYork = Date.parse('2026-10-25T13:00:00.000Z')
    expect((await s.call('GET', `/api/v1/campaigns/${c.id}`)).scheduled_at).toBe(iso(tokyo))
    await at(tokyo + 5_000)
    expect([...(await sentAt(c.id)).keys()]).toEqual([s.emails[0]!])

    await s.call('POST', `/api/v1/campaigns/${c.id}/pause`)
    await at(berlin + 5_000)
    expect((await sentAt(c.id)).size).toBe(1) // Berlin's hour came while paused
    const resumed = await s.call('POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
    expect(resumed.status).toBe('sending')
    await at(clock.t)
    expect((await sentAt(c.id)).get(s.emails[1]!)).toBe(berlin + 5_000)
    expect((await sentAt(c.id)).has(s.emails[2]!)).toBe(false) // New York's is still ahead

    await at(newYork)
    expect((await sentAt(c.id)).size).toBe(3)
    const cancelled = await s.call('POST', `/api/v1/campaigns/${c.id}/cancel`)
    expect(cancelled.status).toBe('cancelled')
    await at(newYork + 6 * 3_600_000)
    expect((await sentAt(c.id)).has(s.emails[3]!)).toBe(false)
  })

  test('paused before its first hour, resumed: scheduled again until then', async () => {
    clock.t = Date.parse('2026-10-26T10:00:00.000Z')
    const s = await audience(['America/New_York'])
    const c = await launchedAtNine(s, 'Later')
    expect((await s.call('POST', `/api/v1/campaigns/${c.id}/pause`)).status).toBe('paused')
    const back = await s.call('POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
    expect(back.status).toBe('scheduled')
    await at(Date.parse('2026-10-26T13:00:00.000Z'))
    expect((await sentAt(c.id)).size).toBe(1)
    expect(await s.call('GET', `/api/v1/campaigns/${c.id}`)).toMatchObject({ status: 'sent' })
  })
})

describe('validation', () => {
  test('send_at_local must be HH:MM; null clears it; it cannot change once launched', async () => {
    const s = await audience(['Europe/Berlin'])
    const base = { name: 'V', list_id: s.list.id, subject: 'V', body_text: 'V' }
    for (const bad of ['9:00', '24:00', '12:60', '09:00:00', 'noon', 900]) {
      const r = await t.call('POST', '/api/v1/campaigns', {
        key: s.key,
        body: { ...base, send_at_local: bad },
      })
      expect(r.status, String(bad)).toBe(422)
      expect(r.body.error.details[0].field).toBe('send_at_local')
    }
    const c = await s.call('POST', '/api/v1/campaigns', { ...base, send_at_local: '23:59' })
    expect(c.send_at_local).toBe('23:59')
    const patch = (body: unknown) => t.call('PATCH', `/api/v1/campaigns/${c.id}`, { key: s.key, body })
    const bad = await patch({ send_at_local: '7am' })
    expect(bad.status).toBe(422)
    expect((await patch({ send_at_local: null })).body.data.send_at_local).toBeNull()
    expect((await patch({ send_at_local: '00:00' })).body.data.send_at_local).toBe('00:00')

    await s.call('POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
    const late = await patch({ send_at_local: '10:00' })
    expect(late.status).toBe(422)
    expect(late.body.error.details[0]).toMatchObject({ field: 'send_at_local' })
    const moved = await patch({ scheduled_at: '2026-12-01T12:00:00Z' })
    expect(moved.status).toBe(422)
    expect(moved.body.error.details[0]).toMatchObject({ field: 'scheduled_at' })
    expect((await patch({ name: 'Renamed' })).status).toBe(200)
  })

  test('not together with an A/B test', async () => {
    const s = await audience([])
    const c = await s.call('POST', '/api/v1/campaigns', {
      name: 'AB',
      list_id: s.list.id,
      subject: 'x',
      body_text: 'x',
    })
    const abTest = JSON.stringify({
      test_share: 0.2,
      metric: 'open_rate',
      duration: 'PT4H',
      duration_ms: 14_400_000,
    })
    // ab_test is jsonb on PostgreSQL, JSON text on SQLite.
    await rawRun(
      t.ctx.db,
      t.ctx.store.dialect === 'postgres'
        ? sql`UPDATE campaigns SET ab_test = ${abTest}::text::jsonb WHERE id = ${c.id}`
        : sql`UPDATE campaigns SET ab_test = ${abTest} WHERE id = ${c.id}`,
    )
    const r = await t.call('PATCH', `/api/v1/campaigns/${c.id}`, {
      key: s.key,
      body: { send_at_local: '09:00' },
    })
    expect(r.status).toBe(422)
    expect(r.body.error.details[0]).toMatchObject({
      field: 'send_at_local',
      message: 'cannot be combined with an A/B test',
    })
  })
})
