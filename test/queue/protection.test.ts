import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { ConfigError, loadConfig } from '../../src/config'
import { mapInOrder } from '../../src/lib/in-order'
import { createWindowLimits } from '../../src/queue/throttle'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { HEALTH_CHECK_INTERVAL_MS } from '../../src/services/deliverability/health-debounce'
import { WARMUP_SCHEDULE, warmupCap } from '../../src/services/deliverability/warmup'
import { findMessage, recordBounce, recordComplaint } from '../../src/services/messages/activity'
import { createTestApp, type TestApp } from '../helpers/app'
import { campaignTenant, countEmail, messagesOf, sentAndSending } from '../helpers/campaign'
import { rowOf, rowsOf, runSql } from '../helpers/raw-sql'
import { allChannels, recordingProvider } from '../helpers/sender'

// Protection of a client's reputation, on a clock the test moves: per-mailbox-provider
// throttles, the warm-up of a new sending domain, the bounce and complaint alerts over the last
// 1,000 sends and the automatic pause of a client's campaigns at 0.3 % complaints.

const T0 = Date.parse('2026-11-23T10:00:30.000Z')
const MINUTE_END = Date.parse('2026-11-23T10:01:00.000Z')
const noOutbox = { sentSince: async () => 0 }
const config = (env: Record<string, string> = {}) => loadConfig({ data: '/tmp/unused' }, env)

describe('per recipient domain throttles', () => {
  const reserveMany = async (limits: ReturnType<typeof createWindowLimits>, to: string, n: number) => {
    let deferred = 0
    let deferTo: number | null = null
    for (let i = 0; i < n; i++) {
      const r = await limits.reserve('c1', to, T0)
      if (r !== null) {
        deferred++
        deferTo = r.at
        expect(r.reason).toBe('throttle')
      }
    }
    return { accepted: n - deferred, deferred, deferTo }
  }

  test("mail to real inboxes (smtp) keeps under the mailbox providers' defaults", async () => {
    const limits = createWindowLimits(noOutbox, config({ HERALD_SMTP_URL: 'smtp://127.0.0.1:2525' }))
    expect(await reserveMany(limits, 'a@gmail.com', 599)).toMatchObject({ accepted: 599, deferred: 0 })
    // googlemail.com is Gmail too: it shares the window.
    expect(await reserveMany(limits, 'b@googlemail.com', 2)).toEqual({
      accepted: 1,
      deferred: 1,
      deferTo: MINUTE_END,
    })
    expect(await reserveMany(limits, 'c@outlook.com', 100)).toMatchObject({ accepted: 100 })
    expect(await reserveMany(limits, 'c@hotmail.com', 150)).toMatchObject({ accepted: 150 })
    expect(await reserveMany(limits, 'c@live.com', 51)).toEqual({
      accepted: 50,
      deferred: 1,
      deferTo: MINUTE_END,
    })
    expect(await reserveMany(limits, 'd@yahoo.com', 301)).toMatchObject({ accepted: 300, deferred: 1 })
    // Other domains are not limited unless HERALD_DOMAIN_THROTTLE says so; phones never.
    expect(await reserveMany(limits, 'e@small.example', 2000)).toMatchObject({ accepted: 2000 })
    expect(await reserveMany(limits, '+14155550132', 2000)).toMatchObject({ accepted: 2000 })
    // The next minute is a new window.
    expect(await limits.reserve('c1', 'a@gmail.com', MINUTE_END)).toBeNull()
  })

  test('capture and the simulator reach no inbox: no defaults there', async () => {
    const limits = createWindowLimits(noOutbox, config())
    expect(await reserveMany(limits, 'a@gmail.com', 2000)).toMatchObject({ accepted: 2000 })
  })

  test('HERALD_DOMAIN_THROTTLES overrides a provider (its group) or adds a domain', async () => {
    const limits = createWindowLimits(
      noOutbox,
      config({ HERALD_DOMAIN_THROTTLES: 'gmail.com=2, Example.org=1', HERALD_DOMAIN_THROTTLE: '5' }),
    )
    expect(await reserveMany(limits, 'a@gmail.com', 1)).toMatchObject({ accepted: 1 })
    expect(await reserveMany(limits, 'a@googlemail.com', 2)).toMatchObject({ accepted: 1, deferred: 1 })
    expect(await reserveMany(limits, 'a@example.org', 2)).toMatchObject({ accepted: 1 })
    expect(await reserveMany(limits, 'a@other.example', 6)).toMatchObject({ accepted: 5 })
    expect(() => config({ HERALD_DOMAIN_THROTTLES: 'gmail.com' })).toThrow(ConfigError)
    expect(() => config({ HERALD_DOMAIN_THROTTLES: 'gmail.com=0' })).toThrow(ConfigError)
    expect(() => config({ HERALD_WARMUP: 'maybe' })).toThrow(ConfigError)
  })
})

describe("a client's sending profile", () => {
  const own = (key: string, throttles: Record<string, number>, hourlyCap: number | null = null) => ({
    key,
    throttles,
    hourlyCap,
    smtp: true,
  })

  test('an own account has its own domain windows and limits; inheriting clients share the instance windows', async () => {
    const limits = createWindowLimits(noOutbox, config({ HERALD_SMTP_URL: 'smtp://127.0.0.1:2525' }))
    const a = own('client-a', { 'gmail.com': 2 })
    const b = own('client-b', { 'gmail.com': 3 })
    const reserve = async (client: string, account?: ReturnType<typeof own>) =>
      (await limits.reserve(client, 'x@gmail.com', T0, null, account))?.at ?? null
    expect(await mapInOrder([1, 2, 3], async () => await reserve('a', a))).toEqual([null, null, MINUTE_END])
    expect(await mapInOrder([1, 2, 3, 4], async () => await reserve('b', b))).toEqual([
      null,
      null,
      null,
      MINUTE_END,
    ])
    // Neither touched the instance's Gmail window (600 a minute by default).
    expect(await reserve('c')).toBeNull()
  })

  test("the profile's hourly cap replaces HERALD_CLIENT_HOURLY_CAP", async () => {
    const limits = createWindowLimits(noOutbox, config({ HERALD_CLIENT_HOURLY_CAP: '100' }))
    const capped = own('client-a', {}, 2)
    const at = async (i: number) => await limits.reserve('a', `p${i}@small.example`, T0, null, capped)
    expect(await mapInOrder([0, 1, 2], at)).toEqual([
      null,
      null,
      { at: Date.parse('2026-11-23T11:00:00.000Z'), reason: 'hourly_cap' },
    ])
    expect(await limits.reserve('b', 'q@small.example', T0)).toBeNull()
  })
})

describe('warm-up of a new sending domain', async () => {
  test('the schedule: 50 on day 1, doubling, no cap after day 15', () => {
    const start = Date.parse('2026-11-23T18:00:00Z')
    expect(warmupCap(start, start)).toBe(50)
    expect(warmupCap(start, Date.parse('2026-11-23T23:59:59Z'))).toBe(50)
    expect(warmupCap(start, Date.parse('2026-11-24T00:00:00Z'))).toBe(100)
    expect(warmupCap(start, Date.parse('2026-12-07T12:00:00Z'))).toBe(WARMUP_SCHEDULE.at(-1)!)
    expect(warmupCap(start, Date.parse('2026-12-08T00:00:00Z'))).toBeNull()
  })

  // A provider that signs for real inboxes (as SMTP does) and a verified domain: its first 50
  // messages go on day 1, the rest wait for the next UTC day, deferred, not failed.
  const clock = { t: Date.parse('2026-11-23T22:00:00.000Z'), now: () => clock.t }
  const t = await createTestApp({ clock })
  const provider = recordingProvider('smtp')
  ;(provider as { capabilities: unknown }).capabilities = {
    storesContent: false,
    reportsDelivery: false,
    needsVerifiedSender: true,
  }

  /** A tenant whose campaign of `n` sends from a verified domain `domain`; its domain as added. */
  async function fromDomain(app: TestApp, domain: string, n: number) {
    const s = await campaignTenant(
      app,
      Array.from({ length: n }, (_, i) => `p${i}@customer.example`),
    )
    const dom = await s.call('POST', '/api/v1/domains', { domain })
    await runSql(
      app,
      app.ctx.store.dialect === 'postgres'
        ? sql`UPDATE domains SET dkim_verified = true, spf_verified = true, status = 'verified' WHERE id = ${dom.id}`
        : sql`UPDATE domains SET dkim_verified = 1, spf_verified = 1, status = 'verified' WHERE id = ${dom.id}`,
    )
    const sender = await s.call('POST', '/api/v1/senders', { from_email: `hi@${domain}`, from_name: 'Acme' })
    await s.call('PATCH', `/api/v1/campaigns/${s.campaign.id}`, { sender_id: sender.id })
    return { ...s, dom }
  }
  const campaignOf = async (s: Awaited<ReturnType<typeof fromDomain>>) =>
    s.call('GET', `/api/v1/campaigns/${s.campaign.id}`)
  const drain = (app: TestApp) =>
    createSendWorker(app.ctx, sendDeps, { providers: allChannels(provider) }).drain()

  test("sends above the day's cap wait for the next day; a restart keeps the count", async () => {
    const s = await fromDomain(t, 'news.acme.example', 60)
    expect(s.dom).toMatchObject({ warmup: true, warmup_progress: null })
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await drain(t)
    const counts = async () =>
      Object.fromEntries(
        (
          await rowsOf<{ status: string; n: number }>(
            t,
            sql`SELECT status, CAST(count(*) AS INTEGER) AS n FROM messages WHERE campaign_id = ${s.campaign.id} GROUP BY status`,
          )
        ).map((r) => [r.status, r.n]),
      )
    expect(await counts()).toEqual({ delivered: 50, queued: 10 })
    const waiting = (await rowOf<{ at: number; attempts: number }>(
      t,
      sql`SELECT CAST(min(next_attempt_at) AS DOUBLE PRECISION) AS at, CAST(max(attempts) AS INTEGER) AS attempts
        FROM messages WHERE campaign_id = ${s.campaign.id} AND status = 'queued'`,
    ))!
    expect(new Date(waiting.at).toISOString()).toBe('2026-11-24T00:00:00.000Z')
    expect(waiting.attempts).toBe(0)
    // The campaign says why it waits, and until when; the domain where its warm-up stands.
    expect((await campaignOf(s)).deferred).toEqual({
      count: 10,
      reason: 'warmup',
      until: '2026-11-24T00:00:00.000Z',
    })
    expect((await s.call('GET', `/api/v1/domains/${s.dom.id}`)).warmup_progress).toEqual({
      started_at: '2026-11-23T22:00:00.000Z',
      day: 1,
      daily_cap: 50,
      sent_today: 50,
    })
    const score = (await s.call('GET', '/api/v1/deliverability/score')).warmup
    expect(score).toEqual([
      expect.objectContaining({
        domain: 'news.acme.example',
        day: 1,
        daily_cap: 50,
        sent_today: 50,
        complete: false,
      }),
    ])

    // A new worker (a restart) the same day still has the day's 50 counted: nothing more goes.
    clock.t += 60 * 60_000
    await drain(t)
    expect(await counts()).toEqual({ delivered: 50, queued: 10 })
    expect((await campaignOf(s)).deferred).toMatchObject({ count: 10, reason: 'warmup' })

    // The next UTC day's cap is 100.
    clock.t = Date.parse('2026-11-24T00:00:00.000Z')
    await drain(t)
    expect(await counts()).toEqual({ delivered: 60 })
    expect(await s.status()).toBe('sent')
    expect((await campaignOf(s)).deferred).toBeNull()
  })

  test('a domain with warm-up off (PATCH) sends everything at once; on again, it warms up', async () => {
    const s = await fromDomain(t, 'known.acme.example', 60)
    const off = await s.call('PATCH', `/api/v1/domains/${s.dom.id}`, { warmup: false })
    expect(off).toMatchObject({ id: s.dom.id, warmup: false, warmup_progress: null })
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await drain(t)
    expect(await s.status()).toBe('sent')
    expect((await campaignOf(s)).deferred).toBeNull()
    expect((await s.call('GET', `/api/v1/domains/${s.dom.id}`)).warmup).toBe(false)

    // Switched on, the domain's next campaign is under the cap (its warm-up starts then).
    expect((await s.call('PATCH', `/api/v1/domains/${s.dom.id}`, { warmup: true })).warmup).toBe(true)
    clock.t += 10_000 // past the send plans' cache
    const next = await s.call('POST', '/api/v1/campaigns', {
      name: 'Second',
      list_id: s.list.id,
      subject: 'Hi',
      body_html: '<p>Hi</p>',
      sender_id: (await campaignOf(s)).sender_id,
    })
    await s.call('POST', `/api/v1/campaigns/${next.id}/launch`, { confirm: true })
    await drain(t)
    const again = await s.call('GET', `/api/v1/campaigns/${next.id}`)
    expect(again.deferred).toMatchObject({ count: 10, reason: 'warmup' })
    expect((await s.call('GET', `/api/v1/domains/${s.dom.id}`)).warmup_progress).toMatchObject({
      day: 1,
      daily_cap: 50,
      sent_today: 50,
    })
  })

  test('HERALD_WARMUP=off: new domains start with warm-up off and send everything at once', async () => {
    const t2 = await createTestApp({ clock, env: { HERALD_WARMUP: 'off' } })
    const s = await fromDomain(t2, 'mail.acme.example', 60)
    expect(s.dom.warmup).toBe(false)
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await drain(t2)
    expect(await s.status()).toBe('sent')
    expect((await campaignOf(s)).deferred).toBeNull()
  })
})

describe('alerts over the last 1,000 sends, and the automatic pause', async () => {
  const clock = { t: T0, now: () => clock.t }
  const t = await createTestApp({ clock })
  const worker = createSendWorker(t.ctx, sendDeps, { providers: allChannels(recordingProvider()) })

  /** Sends made before (as the outcome writer records them), `minutes` ago. */
  const earlier = (clientId: string, minutes: number, d: { sent: number; bounced?: number }) =>
    countEmail(t, clientId, clock.t - minutes * 60_000, d)

  const alerts = async (t: TestApp, key: string, query = '') =>
    (await t.call('GET', `/api/v1/deliverability/alerts${query}`, { key })).body.data as {
      kind: string
      level: string
      active: boolean
      value: number
      window_sends: number
      message: string
      campaign_ids: string[]
    }[]

  test("complaints: 0.1 % records an alert, 0.3 % pauses the client's sending campaigns", async () => {
    const a = await sentAndSending(t, worker, 'a', clock.t)
    expect(await a.status()).toBe('sent')
    // A second campaign of the client is still sending (nobody drains it).
    const { msgs, second: b } = a
    // Each one after the client's check interval, so each runs the check itself (a burst is
    // test/services/deliverability/health-debounce.test.ts).
    const complain = async (i: number) => {
      clock.t += HEALTH_CHECK_INTERVAL_MS
      await recordComplaint(t.ctx, msgs[i]!, clock.t)
    }

    await complain(0) // 1 in 1,001 sends: 0.0999 %, just under
    expect(await alerts(t, a.key)).toEqual([])
    await complain(0) // the same message again counts once
    expect(await alerts(t, a.key)).toEqual([])
    await complain(1) // 2 in 1,001: 0.1998 %
    const [first] = await alerts(t, a.key)
    expect(first).toMatchObject({ kind: 'complaint_rate', level: 'warn', active: true, window_sends: 1001 })
    expect(first!.message).toContain('Complaint rate 0.20 % over the last 1,001 sends (2 complaints)')
    await complain(2) // 3 in 1,001: 0.2997 %, still under 0.3 %
    expect((await a.call('GET', `/api/v1/campaigns/${b.id}`)).status).toBe('sending')
    expect(await alerts(t, a.key)).toHaveLength(1)
    await complain(3) // 4 in 1,001: 0.3996 %
    expect((await a.call('GET', `/api/v1/campaigns/${b.id}`)).status).toBe('paused')
    const now = await alerts(t, a.key)
    expect(now.map((x) => [x.kind, x.level, x.active])).toEqual([
      ['campaigns_paused', 'bad', false],
      ['complaint_rate', 'bad', true],
    ])
    expect(now[0]!.campaign_ids).toEqual([b.id])
    expect(now[0]!.message).toContain('Paused 1 sending campaign(s): complaint rate 0.40 %')
    expect((await alerts(t, a.key, '?active=true')).map((x) => x.kind)).toEqual(['complaint_rate'])
    // The score shows the open alert as a factor.
    const score = await a.call('GET', '/api/v1/deliverability/score')
    const factor = score.factors.find((f: { name: string }) => f.name === 'alerts')
    expect(factor).toMatchObject({ value: 1, status: 'bad', weight: 0 })
    expect(factor.advice).toContain('Complaint rate 0.40 %')
    // Another tenant sees none of it; a platform-wide key sees it with client_id.
    const other = await t.client('Other')
    expect(await alerts(t, await t.key({ scopes: ['analytics:read'], clientId: other }))).toEqual([])
    expect((await alerts(t, t.adminKey, `?client_id=${a.clientId}`)).length).toBe(2)
  })

  test('bounces: 2 % records an alert, resolved when the rate falls back under', async () => {
    const c = await campaignTenant(t, ['b0@y.example', 'b1@y.example'])
    await earlier(c.clientId, 30, { sent: 998, bounced: 18 })
    await c.call('POST', `/api/v1/campaigns/${c.campaign.id}/launch`, { confirm: true })
    await worker.drain()
    const msgs = await messagesOf(t, c.campaign.id)
    await recordBounce(
      t.ctx,
      msgs[0]!,
      { type: 'hard', statusCode: '5.1.1', diagnostic: 'no such user' },
      clock.t,
    )
    expect(await alerts(t, c.key)).toEqual([]) // 19 in 1,000: 1.9 %
    clock.t += HEALTH_CHECK_INTERVAL_MS
    await recordBounce(
      t.ctx,
      msgs[1]!,
      { type: 'hard', statusCode: '5.1.1', diagnostic: 'no such user' },
      clock.t,
    )
    const [alert] = await alerts(t, c.key)
    expect(alert).toMatchObject({ kind: 'bounce_rate', level: 'warn', active: true, value: 0.02 })
    expect(alert!.message).toContain('Bounce rate 2.0 % over the last 1,000 sends (20 bounces)')
    // 1,000 clean sends later, the next bounce finds the rate at 0.1 %: the alert is resolved.
    clock.t += 60 * 60_000
    await earlier(c.clientId, 0, { sent: 1000 })
    const more = await c.call('POST', '/api/v1/campaigns', {
      name: 'More',
      list_id: c.list.id,
      subject: 'S',
      body_html: '<p>x</p>',
    })
    await c.call('POST', `/api/v1/campaigns/${more.id}/launch`, { confirm: true })
    await worker.drain()
    const m2 = (await rowOf<{ id: string }>(t, sql`SELECT id FROM messages WHERE campaign_id = ${more.id}`))!
    await recordBounce(
      t.ctx,
      (await findMessage(t.ctx, m2.id))!,
      { type: 'soft', statusCode: '4.2.2', diagnostic: 'full' },
      clock.t,
    )
    const after = await alerts(t, c.key)
    expect(after.map((x) => [x.kind, x.active])).toEqual([['bounce_rate', false]])
  })
})
