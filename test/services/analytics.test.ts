import { describe, expect, test } from 'bun:test'
import { analyticsRollups, analyticsTotals } from '../../src/db/schema'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import {
  recordBounce,
  recordClick,
  recordComplaint,
  recordOpen,
  recordReply,
  unsubscribeViaMessage,
} from '../../src/services/messages/activity'
import { createTestApp } from '../helpers/app'
import { campaignTenant, messagesOf } from '../helpers/campaign'
import { cliOnApp } from '../helpers/cli'
import { allChannels, recordingProvider } from '../helpers/sender'

// Known event sets give exact funnel and trend numbers: the messages are sent by the real send
// worker at a clock the test sets, and opens, clicks, replies, bounces, complaints and
// unsubscribes go through the same functions the tracking routes, inbound mail and provider
// callbacks call, each at a chosen instant. Every number comes from the rollups.

const HUMAN = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Version/17.0 Safari'
const PROXY = 'Mozilla/5.0' // Apple Mail Privacy Protection's fetch: a machine open
const at = (s: string) => Date.parse(s)

async function setup(start = '2026-03-08T04:30:00.000Z') {
  const clock = { t: at(start), now: () => clock.t }
  const t = await createTestApp({ clock })
  const worker = createSendWorker(t.ctx, sendDeps, { providers: allChannels(recordingProvider()) })
  return { t, clock, worker }
}

const emails = (n: number, domain = 'example.com') => Array.from({ length: n }, (_, i) => `p${i}@${domain}`)

/** A tenant whose 10-recipient campaign was sent at 2026-03-08T04:30Z, and its messages. */
async function sentCampaign(given?: Awaited<ReturnType<typeof setup>>) {
  const env = given ?? (await setup())
  const { t, worker } = env
  const s = await campaignTenant(t, emails(10))
  await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
  await worker.drain()
  expect(await s.status()).toBe('sent')
  return { ...env, s, m: await messagesOf(t, s.campaign.id) }
}

const q = (params: Record<string, string>) => new URLSearchParams(params).toString()

describe('funnel: unique per message, machine opens apart', async () => {
  const { t, s, m } = await sentCampaign()
  const a = t.ctx
  // m0 opened twice (one unique open); m1 opened; m2 only by the privacy proxy; m3 clicked
  // without an open (a click is an open); m4 opened, clicked twice and replied; m7 unsubscribed
  // twice (once counted); m8 complained; m9 bounced (soft, then hard: one bounce).
  await recordOpen(a, m[0]!, HUMAN, at('2026-03-08T05:00:00Z'))
  await recordOpen(a, m[0]!, HUMAN, at('2026-03-08T06:00:00Z'))
  await recordOpen(a, m[1]!, HUMAN, at('2026-03-08T05:10:00Z'))
  await recordOpen(a, m[2]!, PROXY, at('2026-03-08T04:30:05Z'))
  await recordClick(a, m[3]!, 'https://example.com/a', HUMAN, at('2026-03-08T07:00:00Z'))
  await recordOpen(a, m[4]!, HUMAN, at('2026-03-08T05:20:00Z'))
  await recordClick(a, m[4]!, 'https://example.com/a', HUMAN, at('2026-03-08T05:21:00Z'))
  await recordClick(a, m[4]!, 'https://example.com/a', HUMAN, at('2026-03-08T05:22:00Z'))
  await recordReply(
    a,
    m[4]!,
    { from: 'p4@example.com', subject: 'Re', snippet: 'hi', text: 'hi' },
    at('2026-03-08T08:00:00Z'),
  )
  await unsubscribeViaMessage(a, m[7]!, 'link', at('2026-03-08T09:00:00Z'))
  await unsubscribeViaMessage(a, m[7]!, 'link', at('2026-03-08T09:01:00Z'))
  await recordComplaint(a, m[8]!, at('2026-03-08T10:00:00Z'))
  await recordComplaint(a, m[8]!, at('2026-03-08T10:05:00Z'))
  await recordBounce(
    a,
    m[9]!,
    { type: 'soft', statusCode: '4.2.2', diagnostic: 'full' },
    at('2026-03-08T11:00:00Z'),
  )
  await recordBounce(
    a,
    m[9]!,
    { type: 'hard', statusCode: '5.1.1', diagnostic: 'no user' },
    at('2026-03-08T12:00:00Z'),
  )

  test('counts each message once per step, with rates', async () => {
    const r = await t.call(
      'GET',
      `/api/v1/analytics/funnel?${q({ client_id: s.clientId, from: '2026-03-08', to: '2026-03-08' })}`,
    )
    expect(r.status).toBe(200)
    expect(r.body.data.steps).toEqual([
      { name: 'sent', count: 10, rate_from_previous: 1, rate_from_sent: 1 },
      { name: 'delivered', count: 10, rate_from_previous: 1, rate_from_sent: 1 },
      { name: 'opened', count: 4, rate_from_previous: 0.4, rate_from_sent: 0.4 },
      { name: 'clicked', count: 2, rate_from_previous: 0.5, rate_from_sent: 0.2 },
      { name: 'replied', count: 1, rate_from_previous: 0.5, rate_from_sent: 0.1 },
    ])
    expect(r.body.data).toMatchObject({
      machine_opened: 1,
      bounced: 1,
      unsubscribed: 1,
      complained: 1,
      from: '2026-03-08T00:00:00.000Z',
      to: '2026-03-08T23:59:59.999Z',
      timezone: 'UTC',
    })
  })

  test('the default window is the last 30 days; a campaign alone is its whole life', async () => {
    const all = await t.call('GET', `/api/v1/analytics/funnel?client_id=${s.clientId}`)
    expect(all.body.data.steps[0].count).toBe(10)
    expect(all.body.data.from).toBe('2026-02-07T00:00:00.000Z')
    // Only `to`: the 30 days that end with that day, whatever today is.
    const ending = await t.call(
      'GET',
      `/api/v1/analytics/funnel?${q({ client_id: s.clientId, to: '2025-12-31' })}`,
    )
    expect(ending.status).toBe(200)
    expect(ending.body.data.from).toBe('2025-12-02T00:00:00.000Z')
    const one = await t.call(
      'GET',
      `/api/v1/analytics/funnel?${q({ client_id: s.clientId, campaign_id: s.campaign.id })}`,
    )
    expect(one.body.data.steps.map((x: { count: number }) => x.count)).toEqual([10, 10, 4, 2, 1])
    expect(one.body.data.campaign_id).toBe(s.campaign.id)
    const other = await t.call(
      'GET',
      `/api/v1/analytics/funnel?${q({ client_id: s.clientId, campaign_id: '0190a0a0-0000-7000-8000-000000000000' })}`,
    )
    expect(other.body.data.steps.map((x: { count: number }) => x.count)).toEqual([0, 0, 0, 0, 0])
    const sms = await t.call(
      'GET',
      `/api/v1/analytics/funnel?${q({ client_id: s.clientId, channel: 'sms' })}`,
    )
    expect(sms.body.data.steps[0]).toEqual({
      name: 'sent',
      count: 0,
      rate_from_previous: 0,
      rate_from_sent: 0,
    })
  })

  test('a date-time window is taken to the quarter-hour', async () => {
    // 05:00–05:14 holds m0's first open and m1's; m4's (05:20) is in the next quarter.
    const r = await t.call(
      'GET',
      `/api/v1/analytics/funnel?${q({ client_id: s.clientId, from: '2026-03-08T05:00:00Z', to: '2026-03-08T05:14:59Z' })}`,
    )
    expect(r.body.data.steps.map((x: { count: number }) => x.count)).toEqual([0, 0, 2, 0, 0])
  })

  test('trends: every metric, zero-filled hours', async () => {
    const get = async (metric: string) =>
      (
        await t.call(
          'GET',
          `/api/v1/analytics/trends?${q({ client_id: s.clientId, metric, interval: 'hour', from: '2026-03-08', to: '2026-03-08' })}`,
        )
      ).body.data
    const opened = await get('opened')
    expect(opened.points).toHaveLength(24)
    expect(opened.points[5]).toEqual({ t: '2026-03-08T05:00:00.000Z', local: '2026-03-08T05:00', value: 3 })
    expect(opened.points[7].value).toBe(1)
    expect(opened.total).toBe(4)
    const totals: Record<string, number> = {}
    for (const metric of [
      'sent',
      'delivered',
      'opened',
      'clicked',
      'replied',
      'bounced',
      'unsubscribed',
      'complained',
    ])
      totals[metric] = (await get(metric)).total
    expect(totals).toEqual({
      sent: 10,
      delivered: 10,
      opened: 4,
      clicked: 2,
      replied: 1,
      bounced: 1,
      unsubscribed: 1,
      complained: 1,
    })
  })

  test("trends in a time zone: New York's spring-forward day has 23 hours", async () => {
    const r = await t.call(
      'GET',
      `/api/v1/analytics/trends?${q({ client_id: s.clientId, interval: 'hour', timezone: 'America/New_York', from: '2026-03-08', to: '2026-03-08' })}`,
    )
    const pts = r.body.data.points as { t: string; local: string; value: number }[]
    expect(pts).toHaveLength(23)
    expect(pts[0]).toMatchObject({ t: '2026-03-08T05:00:00.000Z', local: '2026-03-08T00:00' })
    expect(pts[2]).toMatchObject({ t: '2026-03-08T07:00:00.000Z', local: '2026-03-08T03:00' })
    // Sent at 04:30Z = 23:30 EST on the 7th: outside the local day.
    expect(r.body.data.total).toBe(0)
    const days = await t.call(
      'GET',
      `/api/v1/analytics/trends?${q({ client_id: s.clientId, timezone: 'America/New_York', from: '2026-03-07', to: '2026-03-09' })}`,
    )
    expect(days.body.data.points).toEqual([
      { t: '2026-03-07T05:00:00.000Z', local: '2026-03-07', value: 10 },
      { t: '2026-03-08T05:00:00.000Z', local: '2026-03-08', value: 0 },
      { t: '2026-03-09T04:00:00.000Z', local: '2026-03-09', value: 0 },
    ])
  })

  test("New York's fall-back day has 25 hours, 01:00 twice", async () => {
    const r = await t.call(
      'GET',
      `/api/v1/analytics/trends?${q({ client_id: s.clientId, interval: 'hour', timezone: 'America/New_York', from: '2026-11-01', to: '2026-11-01' })}`,
    )
    const pts = r.body.data.points as { t: string; local: string }[]
    expect(pts).toHaveLength(25)
    expect(pts.slice(1, 3)).toEqual([
      expect.objectContaining({ t: '2026-11-01T05:00:00.000Z', local: '2026-11-01T01:00' }),
      expect.objectContaining({ t: '2026-11-01T06:00:00.000Z', local: '2026-11-01T01:00' }),
    ])
    const days = await t.call(
      'GET',
      `/api/v1/analytics/trends?${q({ client_id: s.clientId, timezone: 'America/New_York', from: '2026-10-31', to: '2026-11-02' })}`,
    )
    expect(days.body.data.points.map((p: { t: string }) => p.t)).toEqual([
      '2026-10-31T04:00:00.000Z',
      '2026-11-01T04:00:00.000Z',
      '2026-11-02T05:00:00.000Z',
    ])
  })

  test('half-hour zones: a Kolkata day starts at 18:30 UTC', async () => {
    const r = await t.call(
      'GET',
      `/api/v1/analytics/trends?${q({ client_id: s.clientId, metric: 'opened', interval: 'hour', timezone: 'Asia/Kolkata', from: '2026-03-08', to: '2026-03-08' })}`,
    )
    const pts = r.body.data.points as { t: string; local: string; value: number }[]
    expect(pts).toHaveLength(24)
    expect(pts[0]!.t).toBe('2026-03-07T18:30:00.000Z')
    // 05:00, 05:10 and 05:20 UTC are 10:30–10:50 IST; 07:00 UTC is 12:30 IST.
    expect(pts[10]).toEqual({ t: '2026-03-08T04:30:00.000Z', local: '2026-03-08T10:00', value: 3 })
    expect(pts[11]).toEqual({ t: '2026-03-08T05:30:00.000Z', local: '2026-03-08T11:00', value: 0 })
    expect(pts[12]).toEqual({ t: '2026-03-08T06:30:00.000Z', local: '2026-03-08T12:00', value: 1 })
    // In UTC the same opens fall in the 05:00 and 07:00 hours.
  })
})

describe('trends: windows and buckets', async () => {
  const { t, s } = await sentCampaign(await setup('2026-11-23T10:00:00.000Z'))

  test('an empty client: zero-filled, 30 days by default', async () => {
    const empty = await t.client('Empty')
    const r = await t.call('GET', `/api/v1/analytics/trends?client_id=${empty}`)
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ metric: 'sent', interval: 'day', timezone: 'UTC', total: 0 })
    expect(r.body.data.points).toHaveLength(30)
    expect(r.body.data.points.at(-1)).toEqual({
      t: '2026-11-23T00:00:00.000Z',
      local: '2026-11-23',
      value: 0,
    })
    const f = await t.call('GET', `/api/v1/analytics/funnel?client_id=${empty}`)
    expect(f.body.data.steps.every((x: { count: number }) => x.count === 0)).toBe(true)
  })

  test('a one-day window', async () => {
    const r = await t.call(
      'GET',
      `/api/v1/analytics/trends?${q({ client_id: s.clientId, from: '2026-11-23', to: '2026-11-23' })}`,
    )
    expect(r.body.data.points).toEqual([{ t: '2026-11-23T00:00:00.000Z', local: '2026-11-23', value: 10 }])
  })

  test('weeks start on Monday', async () => {
    // 2026-11-23 is a Monday.
    const r = await t.call(
      'GET',
      `/api/v1/analytics/trends?${q({ client_id: s.clientId, interval: 'week', from: '2026-11-16', to: '2026-11-29' })}`,
    )
    expect(r.body.data.points).toEqual([
      { t: '2026-11-16T00:00:00.000Z', local: '2026-11-16', value: 0 },
      { t: '2026-11-23T00:00:00.000Z', local: '2026-11-23', value: 10 },
    ])
  })

  test('bad parameters answer 422 naming them', async () => {
    const bad = async (params: Record<string, string>, field: string) => {
      const r = await t.call('GET', `/api/v1/analytics/trends?${q({ client_id: s.clientId, ...params })}`)
      expect(r.status).toBe(422)
      expect(r.body.error.code).toBe('VALIDATION_FAILED')
      expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain(field)
    }
    await bad({ metric: 'revenue' }, 'metric')
    await bad({ interval: 'month' }, 'interval')
    await bad({ timezone: 'Mars/Olympus' }, 'timezone')
    await bad({ from: '2026-02-30' }, 'from')
    await bad({ from: 'yesterday' }, 'from')
    await bad({ from: '2026-11-23', to: '2026-11-01' }, 'from')
    await bad({ channel: 'pigeon' }, 'channel')
    // Hour buckets over more than ~416 days, two sources at once, a source that is not an id.
    await bad({ interval: 'hour', from: '2025-01-01', to: '2026-11-23' }, 'from')
    await bad(
      {
        campaign_id: '01a00000-0000-7000-8000-000000000001',
        journey_id: '01a00000-0000-7000-8000-000000000002',
      },
      'campaign_id',
    )
    await bad({ campaign_id: 'nope' }, 'campaign_id')
  })

  test('tenancy and scope: a platform-wide key names the client, a tenant key reads its own, any key reads', async () => {
    const r = await t.call('GET', '/api/v1/analytics/funnel')
    expect(r.status).toBe(422)
    expect(r.body.error.details[0].field).toBe('client_id')
    const own = await t.key({ scopes: ['analytics:read'], clientId: s.clientId })
    const other = await t.client('Other')
    // A tenant key's client_id is ignored: it reads its own client.
    const mine = await t.call('GET', `/api/v1/analytics/funnel?client_id=${other}`, { key: own })
    expect(mine.body.data.client_id).toBe(s.clientId)
    expect(mine.body.data.steps[0].count).toBe(10)
    // Any valid key reads analytics (the spec's "default" scope).
    const contactsOnly = await t.key({ scopes: ['contacts:read'], clientId: s.clientId })
    for (const path of [
      '/api/v1/analytics/trends',
      '/api/v1/analytics/funnel',
      '/api/v1/deliverability/score',
    ])
      expect((await t.call('GET', path, { key: contactsOnly })).status).toBe(200)
  })
})

describe('rebuild equals the incremental totals', async () => {
  const { t, clock, worker, s, m } = await sentCampaign(await setup('2026-06-01T08:00:00.000Z'))
  const a = t.ctx
  // A mixed workload over several days and a second campaign, then rebuilt from the messages.
  const second = await campaignTenant(t, emails(30, 'other.example'), { name: 'Second' })
  clock.t = at('2026-06-02T13:07:00Z')
  await second.call('POST', `/api/v1/campaigns/${second.campaign.id}/launch`, { confirm: true })
  await worker.drain()
  const m2 = await messagesOf(t, second.campaign.id)
  let minute = 0
  const next = () => at('2026-06-02T14:00:00Z') + 7 * 60_000 * ++minute
  for (const [i, msg] of [...m, ...m2].entries()) {
    if (i % 2 === 0) await recordOpen(a, msg, i % 6 === 0 ? PROXY : HUMAN, next())
    if (i % 3 === 0) await recordOpen(a, msg, HUMAN, next())
    if (i % 4 === 0) await recordClick(a, msg, 'https://example.com/a', HUMAN, next())
    if (i % 5 === 0)
      await recordReply(a, msg, { from: msg.to, subject: null, snippet: 's', text: null }, next())
    if (i % 7 === 0)
      await recordBounce(
        a,
        msg,
        { type: i % 2 ? 'soft' : 'hard', statusCode: null, diagnostic: null },
        next(),
      )
    if (i % 11 === 0) await recordComplaint(a, msg, next())
    if (i % 13 === 0) await unsubscribeViaMessage(a, msg, 'link', next())
  }
  const r = analyticsRollups
  const snapshot = async () => [
    await t.ctx.db
      .select()
      .from(r)
      .orderBy(r.clientId, r.bucket, r.channel, r.campaignId, r.journeyId, r.sequenceId),
    await t.ctx.db
      .select()
      .from(analyticsTotals)
      .orderBy(analyticsTotals.clientId, analyticsTotals.bucket, analyticsTotals.channel),
  ]

  test('herald analytics rebuild (the console actor, on the data file) gives the same rows', async () => {
    const incremental = await snapshot()
    expect(incremental[0]!.length).toBeGreaterThan(10)
    expect(incremental[1]!.length).toBeGreaterThan(10)
    await t.ctx.db.delete(analyticsRollups)
    await t.ctx.db.delete(analyticsTotals)
    expect(await snapshot()).toEqual([[], []])
    // The command reads the store from the environment, as an operator's would: the app's own.
    const r = await cliOnApp(t, ['analytics', 'rebuild'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/rebuilt \d+ rollup rows/)
    expect(await snapshot()).toEqual(incremental)
    // The campaign counters and the rollups agree too.
    const f = await t.call(
      'GET',
      `/api/v1/analytics/funnel?${q({ client_id: second.clientId, campaign_id: second.campaign.id })}`,
    )
    const stats = (await t.call('GET', `/api/v1/campaigns/${second.campaign.id}/stats`)).body.data
    expect(f.body.data.steps.map((x: { count: number }) => x.count)).toEqual([
      stats.sent,
      stats.delivered,
      stats.opened,
      stats.clicked,
      stats.replied,
    ])
    expect(f.body.data.machine_opened).toBe(stats.machine_opened)
  })

  test('a rebuild of one client gives the same rows and leaves the others', async () => {
    const before = await snapshot()
    expect((await cliOnApp(t, ['analytics', 'rebuild', '--client', s.clientId])).code).toBe(0)
    expect(await snapshot()).toEqual(before)
  })

  test('a rebuild of a client that does not exist: exit 1, "no such client", nothing rebuilt', async () => {
    const before = await snapshot()
    const err: string[] = []
    const codes: number[] = []
    // A well-formed id no client has, and one that is not an id at all.
    for (const client of ['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'nope']) {
      const r = await cliOnApp(t, ['analytics', 'rebuild', '--client', client])
      codes.push(r.code)
      err.push(r.stderr)
    }
    expect(codes).toEqual([1, 1])
    expect(err).toEqual(['herald: client_id: no such client\n', 'herald: client_id: no such client\n'])
    expect(await snapshot()).toEqual(before)
  })
})
