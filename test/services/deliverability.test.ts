import { describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { rawRun } from '../../src/db/raw'
import type { RollupDeltas } from '../../src/db/rollups'
import { clients, domains } from '../../src/db/schema'
import { contactsHighWater, indexContactsAfter } from '../../src/services/contacts/search-index'
import { countUnreachableAfter } from '../../src/services/contacts/unreachable'
import { gradeOf, lowerIsBetter, THRESHOLDS } from '../../src/services/deliverability/score'
import { createTestApp, type TestApp } from '../helpers/app'
import { countEmail } from '../helpers/campaign'

// The deliverability score's factors at and around each threshold, from rollups written as the
// event writers write them (a client's counters per quarter-hour), with the advice sentences
// carrying the numbers and naming the campaign behind a bad rate.

const NOW = Date.parse('2026-11-23T12:00:00.000Z')
const DAY = 86_400_000

interface Factor {
  name: string
  value: number | null
  weight: number
  score: number | null
  status: string
  advice: string
}

async function setup() {
  const clock = { t: NOW, now: () => clock.t }
  const t = await createTestApp({ clock })
  /** A client with a verified domain (DKIM, SPF, DMARC all passing) and `contacts` contacts. */
  const client = async (name: string, contacts = 1000) => {
    const id = await t.client(name)
    await t.ctx.db.update(clients).set({ contactCount: contacts }).where(eq(clients.id, id))
    return id
  }
  const add = (clientId: string, daysAgo: number, d: RollupDeltas, campaignId: string | null = null) =>
    countEmail(t, clientId, NOW - daysAgo * DAY, d, campaignId)
  const score = async (clientId: string) => {
    const r = await t.call('GET', `/api/v1/deliverability/score?client_id=${clientId}`)
    expect(r.status).toBe(200)
    return r.body.data as {
      score: number
      grade: string
      scored_on: string
      note: string | null
      factors: Factor[]
      campaigns: { name: string; bounce_rate: number; complained: number }[]
      domains: { domain: string; dkim: boolean; spf: boolean; dmarc: boolean }[]
    }
  }
  const factor = async (clientId: string, name: string) =>
    (await score(clientId)).factors.find((f) => f.name === name)!
  return { t, client, add, score, factor }
}

async function verifiedDomain(t: TestApp, clientId: string, domain: string, dmarc = true) {
  const r = await t.call('POST', `/api/v1/domains?client_id=${clientId}`, { body: { domain } })
  expect(r.status).toBe(200)
  await t.ctx.db
    .update(domains)
    .set({
      dkimVerified: true,
      spfVerified: true,
      dmarcVerified: dmarc,
      status: 'verified',
      checks: { checked_at: NOW - DAY, dkim: {}, spf: {}, dmarc: {} } as never,
    })
    .where(eq(domains.id, r.body.data.id))
  return r.body.data.id as string
}

test('the factor curve: 100 under warn, 80 → 50 up to bad, 50 → 0 at twice bad', () => {
  const t = THRESHOLDS.bounce_rate
  expect(lowerIsBetter(0.0199, t)).toEqual({ score: 100, status: 'ok' })
  expect(lowerIsBetter(0.02, t)).toEqual({ score: 80, status: 'warn' })
  expect(lowerIsBetter(0.035, t)).toEqual({ score: 65, status: 'warn' })
  expect(lowerIsBetter(0.0499, t)).toEqual({ score: 50, status: 'warn' })
  expect(lowerIsBetter(0.05, t)).toEqual({ score: 50, status: 'bad' })
  expect(lowerIsBetter(0.1, t)).toEqual({ score: 0, status: 'bad' })
  expect(lowerIsBetter(0.5, t)).toEqual({ score: 0, status: 'bad' })
  expect([95, 90, 89, 80, 79, 70, 69, 60, 59, 0].map(gradeOf)).toEqual([
    'A',
    'A',
    'B',
    'B',
    'C',
    'C',
    'D',
    'D',
    'F',
    'F',
  ])
})

describe('factors at and around their thresholds', async () => {
  const { t, client, add, factor, score } = await setup()

  test('bounce rate: 1.9 % ok, 2 % warn, 5 % bad, with the culprit campaign and its list', async () => {
    const ok = await client('Ok')
    await add(ok, 1, { sent: 1000, delivered: 1000, bounced: 19 })
    expect(await factor(ok, 'bounce_rate')).toMatchObject({
      value: 0.019,
      status: 'ok',
      score: 100,
      weight: 20,
    })
    const warn = await client('Warn')
    await add(warn, 1, { sent: 1000, delivered: 1000, bounced: 20 })
    const w = await factor(warn, 'bounce_rate')
    expect(w).toMatchObject({ value: 0.02, status: 'warn', score: 80 })
    expect(w.advice).toStartWith(
      'Bounce rate 2.0 % over 30 days (20 of 1,000 sends): remove addresses that bounced',
    )

    const bad = await client('Bad')
    const key = await t.key({ scopes: ['admin:*'], clientId: bad })
    const list = (await t.call('POST', '/api/v1/lists', { key, body: { name: 'Fair leads' } })).body.data
    const camp = (
      await t.call('POST', '/api/v1/campaigns', {
        key,
        body: { name: 'Spring sale', list_id: list.id, subject: 'S', body_html: '<p>x</p>' },
      })
    ).body.data
    await add(bad, 3, { sent: 600, delivered: 600, bounced: 6 })
    await add(bad, 2, { sent: 400, delivered: 380, bounced: 44 }, camp.id)
    const b = await factor(bad, 'bounce_rate')
    expect(b).toMatchObject({ value: 0.05, status: 'bad', score: 50 })
    expect(b.advice).toContain('Bounce rate 5.0 % over 30 days (50 of 1,000 sends)')
    expect(b.advice).toContain(
      'campaign "Spring sale" (11.0 % of 400 sends; list "Fair leads", created 2026-11-23)',
    )
    const s = await score(bad)
    expect(s.campaigns[0]).toMatchObject({ name: 'Spring sale', bounce_rate: 0.11 })
  })

  test('complaint rate over deliveries: 0.09 % ok, 0.1 % warn, 0.3 % bad', async () => {
    const cases: [number, string, number][] = [
      [9, 'ok', 100],
      [10, 'warn', 80],
      [29, 'warn', 52],
      [30, 'bad', 50],
    ]
    for (const [complaints, status, points] of cases) {
      const c = await client(`C${complaints}`)
      await add(c, 1, { sent: 10_500, delivered: 10_000, complained: complaints })
      const f = await factor(c, 'complaint_rate')
      expect(f).toMatchObject({ value: complaints / 10_000, status, score: points })
      expect(f.advice).toContain(`(${complaints} of 10,000 delivered)`)
    }
  })

  test('unsubscribe, engagement, list hygiene and volume consistency', async () => {
    const c = await client('Mixed', 2000)
    // 20 days of 100 sends, then one day of 700.
    for (let d = 2; d < 22; d++)
      await add(c, d, { sent: 100, delivered: 100, opened: 10, clicked: 2, machine_opened: 5 })
    await add(c, 1, { sent: 700, delivered: 700, opened: 40, unsubscribed: 14 })
    const factors = Object.fromEntries((await score(c)).factors.map((f) => [f.name, f]))
    // 14 of 2,700 delivered: 0.52 %.
    expect(factors.unsubscribe_rate).toMatchObject({ status: 'warn', value: 0.0052 })
    // 240 opens of 2,700: 8.9 %, under 15 %.
    expect(factors.engagement).toMatchObject({ status: 'warn', value: 0.0889 })
    expect(factors.engagement!.advice).toContain('Open rate 8.9 % and click rate 1.5 %')
    expect(factors.engagement!.advice).toContain('100 machine opens left out')
    // 700 ÷ (2,700 / 21) = 5.44×.
    expect(factors.volume_consistency).toMatchObject({ status: 'warn', value: 5.44 })
    expect(factors.volume_consistency!.advice).toContain(
      'Busiest day 700 sends, 5.4× the average sending day',
    )
    expect(factors.list_hygiene).toMatchObject({ status: 'ok', value: 0 })
    // 110 of 2,000 contacts bounced hard or complained: 5.5 %. Inserted as every insert path
    // does: the rows, then their search index and clients.unreachable_count.
    const highWater = await contactsHighWater(t.ctx.sqlite)
    for (let i = 0; i < 110; i++)
      await rawRun(
        t.ctx.db,
        sql`INSERT INTO contacts (id, client_id, client_no, email, status, custom_fields, created_at, updated_at) VALUES (${Bun.randomUUIDv7()}, ${c}, (SELECT no FROM clients WHERE id = ${c}), ${`s${i}@x.example`}, ${i % 2 ? 'bounced' : 'complained'}, '{}', ${NOW}, ${NOW})`,
      )
    await indexContactsAfter(t.ctx.sqlite, highWater)
    await countUnreachableAfter(t.ctx.sqlite, c, highWater)
    expect(await factor(c, 'list_hygiene')).toMatchObject({ status: 'warn', value: 0.055 })
  })

  // Gap 11 of the s6 acceptance review: DESIGN §7 says "share of suppressed/bounced contacts";
  // the factor counted bounced and complained contacts only, so unsubscribes were left out.
  test('list hygiene counts every suppressed contact once, whatever the reason', async () => {
    const c = await client('Hygiene', 1000)
    await add(c, 1, { sent: 100, delivered: 100, opened: 30 })
    const contact = async (email: string, status = 'subscribed') => {
      const highWater = await contactsHighWater(t.ctx.sqlite)
      await rawRun(
        t.ctx.db,
        sql`INSERT INTO contacts (id, client_id, client_no, email, status, custom_fields, created_at, updated_at) VALUES (${Bun.randomUUIDv7()}, ${c}, (SELECT no FROM clients WHERE id = ${c}), ${email}, ${status}, '{}', ${NOW}, ${NOW})`,
      )
      await indexContactsAfter(t.ctx.sqlite, highWater)
      await countUnreachableAfter(t.ctx.sqlite, c, highWater)
    }
    const suppressed = async (email: string, source: string, clientId = c) =>
      await rawRun(
        t.ctx.db,
        sql`INSERT INTO suppressions (id, client_id, email, source, created_at) VALUES (${Bun.randomUUIDv7()}, ${clientId}, ${email}, ${source}, ${NOW})`,
      )
    const other = await client('Other')
    for (let i = 0; i < 30; i++) {
      // Bounced hard and suppressed for it: one contact, counted once.
      await contact(`b${i}@x.example`, 'bounced')
      await suppressed(`b${i}@x.example`, 'hard_bounce')
    }
    for (let i = 0; i < 5; i++) await contact(`c${i}@x.example`, 'complained')
    for (let i = 0; i < 40; i++) {
      await contact(`u${i}@x.example`, 'unsubscribed')
      await suppressed(`u${i}@x.example`, 'unsubscribe')
    }
    for (let i = 0; i < 10; i++) {
      await contact(`a${i}@x.example`)
      await suppressed(`a${i}@x.example`, 'api')
    }
    // The address as the contact wrote it; suppressions are stored lower-cased.
    await contact('Mixed.Case@X.example')
    await suppressed('mixed.case@x.example', 'admin')
    // Not counted: a suppression with no contact, and a contact suppressed by another client.
    await suppressed('nobody@x.example', 'api')
    await contact('theirs@x.example')
    await suppressed('theirs@x.example', 'api', other)
    const f = await factor(c, 'list_hygiene')
    // 30 + 5 + 40 + 10 + 1 = 86 of 1,000 contacts: 8.6 %, over the 5 % warn line.
    expect(f).toMatchObject({ status: 'warn', value: 0.086 })
    expect(f.advice).toStartWith(
      '8.6 % of 1,000 contacts are suppressed or bounced: 30 bounced hard, 5 complained, 51 suppressed for another reason (unsubscribed, or added to the suppression list)',
    )
  })

  test('authentication per sending domain from its last verification', async () => {
    const c = await client('Auth')
    await add(c, 1, { sent: 100, delivered: 100, opened: 30 })
    const none = await factor(c, 'authentication')
    expect(none).toMatchObject({ status: 'bad', score: 0 })
    expect(none.advice).toStartWith('No sending domain')
    await verifiedDomain(t, c, 'good.example')
    expect(await factor(c, 'authentication')).toMatchObject({ status: 'ok', value: 1, score: 100 })
    await verifiedDomain(t, c, 'nodmarc.example', false)
    const half = await factor(c, 'authentication')
    expect(half).toMatchObject({ status: 'warn', value: 0.8333, score: 83 })
    expect(half.advice).toContain(
      'nodmarc.example: no DMARC record at _dmarc.nodmarc.example (checked 2026-11-22)',
    )
    const s = await score(c)
    expect(s.domains.map((d) => [d.domain, d.dkim, d.spf, d.dmarc])).toEqual([
      ['good.example', true, true, true],
      ['nodmarc.example', true, true, false],
    ])
  })

  test('no sends in 30 days: authentication alone, and it says so', async () => {
    const c = await client('Quiet')
    await add(c, 31, { sent: 5000, delivered: 5000, bounced: 4000 }) // outside the window
    await verifiedDomain(t, c, 'quiet.example', false)
    const s = await score(c)
    expect(s).toMatchObject({ scored_on: 'authentication_only', score: 67, grade: 'D' })
    expect(s.note).toBe('No sends in the last 30 days: the score is the authentication factor alone.')
    const bounce = s.factors.find((f) => f.name === 'bounce_rate')!
    expect(bounce).toMatchObject({ value: null, score: null, weight: 0 })
    expect(bounce.advice).toStartWith('No sends in the last 30 days')
  })

  test('a healthy client scores A', async () => {
    const c = await client('Healthy', 5000)
    for (let d = 1; d < 29; d += 3)
      await add(c, d, { sent: 500, delivered: 495, opened: 150, clicked: 30, bounced: 5 })
    await verifiedDomain(t, c, 'healthy.example')
    const s = await score(c)
    expect(s.factors.filter((f) => f.status !== 'ok').map((f) => f.name)).toEqual([])
    expect(s).toMatchObject({ score: 100, grade: 'A', scored_on: 'all_factors' })
  })

  test('tenancy and scope', async () => {
    const c = await client('Mine')
    const r = await t.call('GET', '/api/v1/deliverability/score')
    expect(r.status).toBe(422)
    const own = await t.key({ scopes: ['analytics:read'], clientId: c })
    expect((await t.call('GET', '/api/v1/deliverability/score', { key: own })).body.data.client_id).toBe(c)
    // Any valid key reads it (the spec's "default" scope).
    const contactsOnly = await t.key({ scopes: ['contacts:read'], clientId: c })
    expect((await t.call('GET', '/api/v1/deliverability/score', { key: contactsOnly })).status).toBe(200)
    expect((await t.call('GET', '/api/v1/deliverability/score', { key: null })).status).toBe(401)
  })
})
