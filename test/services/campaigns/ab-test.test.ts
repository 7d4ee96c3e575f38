// A/B campaigns on the injected clock: the test share split into equal, seeded, disjoint groups,
// the rest held; opens through the real pixel endpoint make one variant better; the decision job
// picks it when the duration has passed (not a millisecond before), records why, and sends it to
// the rest; an operator's early pick; pause during the test; a campaign without a test unchanged.
import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import type { OutgoingEmail } from '../../../src/channels/types'
import { rawRows, rawRun } from '../../../src/db/raw'
import { inTransaction } from '../../../src/db/transaction'
import { registerJobs } from '../../../src/jobs'
import { unitOf } from '../../../src/lib/seeded'
import { createSendWorker } from '../../../src/queue/worker'
import { sendDeps } from '../../../src/sending'
import { createTestApp } from '../../helpers/app'
import { tenant } from '../../helpers/campaign'
import { testClock } from '../../helpers/journey'
import { allChannels, recordingProvider } from '../../helpers/sender'

const HOUR = 3_600_000

async function setup(recipients = 100, ab: Record<string, unknown> = {}) {
  const clock = testClock()
  const t = await createTestApp({ clock })
  registerJobs(t.ctx)
  const provider = recordingProvider()
  const sender = createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider), pollMs: 10 })
  const { call, clientId } = await tenant(t)
  const list = await call('POST', '/api/v1/lists', { name: 'All' })
  await inTransaction(t.ctx.sqlite, async () => {
    const at = clock.now() - 1000
    for (let i = 0; i < recipients; i++) {
      const id = Bun.randomUUIDv7()
      await rawRun(
        t.ctx.db,
        sql`INSERT INTO contacts (id, client_id, client_no, email, status, custom_fields, created_at, updated_at)
          VALUES (${id}, ${clientId}, (SELECT no FROM clients WHERE id = ${clientId}), ${`p${i}@example.com`}, 'subscribed', '{}', ${at}, ${at})`,
      )
      await rawRun(
        t.ctx.db,
        sql`INSERT INTO list_members (list_id, contact_id, status, added_at, confirmed_at) VALUES (${list.id}, ${id}, 'confirmed', ${at}, ${at})`,
      )
    }
    await rawRun(t.ctx.db, sql`UPDATE lists SET member_count = ${recipients} WHERE id = ${list.id}`)
  })
  const campaign = await call('POST', '/api/v1/campaigns', {
    name: 'Spring sale',
    list_id: list.id,
    subject: 'Base subject',
    body_html: '<p>Hello {{ contact.email }}</p>',
    variants: [
      { name: 'A', subject: 'Plain subject' },
      { name: 'B', subject: 'Exciting subject' },
    ],
    ab_test: { test_share: 0.2, metric: 'open_rate', duration: 'PT4H' },
    ...ab,
  })
  const sentOf = (name: string) =>
    (provider.sent as OutgoingEmail[]).filter(
      (m) => m.subject === (name === 'A' ? 'Plain subject' : 'Exciting subject'),
    )
  const decide = () => t.ctx.jobs.tick('campaigns.decide-ab-tests')
  return { t, clock, provider, sender, call, clientId, list, campaign, sentOf, decide }
}

/** Opens a message through the pixel endpoint, as a reader's mail client would. */
const READER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15'
/** What a privacy proxy fetching every image sends (a bare "Mozilla/5.0"): a machine open. */
const PROXY = 'Mozilla/5.0'

async function open(s: Awaited<ReturnType<typeof setup>>, m: OutgoingEmail, ua = READER) {
  const pixel = new URL(/src="([^"]+\/t\/o\/[^"]+)"/.exec(m.html!)![1]!).pathname
  const r = await s.t.app.handle(
    new Request(`http://localhost:8080${pixel}`, { headers: { 'user-agent': ua } }),
  )
  expect(r.status).toBe(200)
}

describe('A/B campaigns', () => {
  test('equal seeded groups; the better variant wins at the duration and goes to the rest', async () => {
    const s = await setup()
    const launched = await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    expect(launched.total_recipients).toBe(100)
    await s.sender.drain()
    // 20 % of 100 test: 10 each, nobody twice, nobody else yet.
    expect(s.sentOf('A')).toHaveLength(10)
    expect(s.sentOf('B')).toHaveLength(10)
    expect(s.provider.sent).toHaveLength(20)
    expect(new Set(s.provider.sent.map((m) => m.to)).size).toBe(20)
    // The groups are the campaign's seeded draw: the 20 lowest draws, alternating by rank.
    const rows = (
      await rawRows<{ contact_id: string; email: string; variant: number | null }>(
        s.t.ctx.db,
        sql`SELECT m.contact_id, c.email, CAST(m.variant AS INTEGER) AS variant FROM messages m JOIN contacts c ON c.id = m.contact_id WHERE m.campaign_id = ${s.campaign.id}`,
      )
    ).sort((a, b) => unitOf(`${s.campaign.id}:${a.contact_id}`) - unitOf(`${s.campaign.id}:${b.contact_id}`))
    expect(rows.slice(0, 20).map((r) => r.variant)).toEqual(Array.from({ length: 20 }, (_, i) => i % 2))
    expect(rows.slice(20).every((r) => r.variant === null)).toBe(true)
    const state = (await s.call('GET', `/api/v1/campaigns/${s.campaign.id}`)).ab_test_state
    expect(state).toMatchObject({ phase: 'testing', winner: null })
    expect(Date.parse(state.decides_at) - Date.parse(state.started_at)).toBe(4 * HOUR)

    // B is clearly better: 6 of 10 open against 1 of 10; machine opens of A do not count.
    for (const m of s.sentOf('B').slice(0, 6)) await open(s, m)
    await open(s, s.sentOf('A')[0]!)
    for (const m of s.sentOf('A').slice(1, 9)) await open(s, m, PROXY)
    const stats = await s.call('GET', `/api/v1/campaigns/${s.campaign.id}/stats`)
    expect(stats.variants.map((v: { name: string; opened: number }) => [v.name, v.opened])).toEqual([
      ['A', 1],
      ['B', 6],
    ])

    // A millisecond before the duration: nothing decided, nothing more sent.
    s.clock.t = Date.parse(state.decides_at) - 1
    await s.decide()
    await s.sender.drain()
    expect(s.provider.sent).toHaveLength(20)
    expect((await s.call('GET', `/api/v1/campaigns/${s.campaign.id}`)).ab_test_state.phase).toBe('testing')

    s.clock.t = Date.parse(state.decides_at)
    expect(await s.decide()).toBe(true)
    await s.sender.drain()
    expect(s.sentOf('B')).toHaveLength(90)
    expect(s.sentOf('A')).toHaveLength(10)
    expect(new Set(s.provider.sent.map((m) => m.to)).size).toBe(100)
    const done = await s.call('GET', `/api/v1/campaigns/${s.campaign.id}`)
    expect(done.status).toBe('sent')
    expect(done.ab_test_state).toMatchObject({ phase: 'decided', winner: 'B', reason: 'metric' })
    const after = await s.call('GET', `/api/v1/campaigns/${s.campaign.id}/stats`)
    expect(after.variants[1]).toMatchObject({ name: 'B', winner: true, sent: 90 })
    expect(after.variants[1].at_decision).toMatchObject({ sent: 10, opened: 6, open_rate: 0.6 })
    expect(after.variants[0]).toMatchObject({ name: 'A', winner: false })
    // Deciding again changes nothing.
    await s.decide()
    expect((await s.call('GET', `/api/v1/campaigns/${s.campaign.id}`)).ab_test_state.decided_at).toBe(
      done.ab_test_state.decided_at,
    )
  })

  test('a tie goes to the first variant; an operator may pick early; a second pick is refused', async () => {
    const tie = await setup(40)
    await tie.call('POST', `/api/v1/campaigns/${tie.campaign.id}/launch`, { confirm: true })
    await tie.sender.drain()
    tie.clock.t += 4 * HOUR
    await tie.decide()
    expect((await tie.call('GET', `/api/v1/campaigns/${tie.campaign.id}`)).ab_test_state.winner).toBe('A')

    const s = await setup(40)
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await s.sender.drain()
    const picked = await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/ab-test/winner`, { variant: 'b' })
    expect(picked).toMatchObject({ phase: 'decided', winner: 'B', reason: 'manual' })
    await s.sender.drain()
    expect(s.sentOf('B').length).toBe(36)
    const again = await s.t.call('POST', `/api/v1/campaigns/${s.campaign.id}/ab-test/winner`, {
      key: s.t.adminKey,
      body: { variant: 'A' },
    })
    expect(again.status).toBe(409)
    expect(again.body.error.code).toBe('INVALID_STATE')
    const unknown = await s.t.call('POST', `/api/v1/campaigns/${s.campaign.id}/ab-test/winner`, {
      key: s.t.adminKey,
      body: { variant: 'C' },
    })
    expect(unknown.status).toBe(422)
  })

  test('paused during the test: nothing is decided or sent until it resumes; cancel drops the rest', async () => {
    const s = await setup(50)
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await s.sender.drain()
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/pause`)
    s.clock.t += 5 * HOUR
    await s.decide()
    await s.sender.drain()
    expect(s.provider.sent).toHaveLength(10)
    expect((await s.call('GET', `/api/v1/campaigns/${s.campaign.id}`)).ab_test_state.phase).toBe('testing')
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await s.decide()
    await s.sender.drain()
    expect(s.provider.sent).toHaveLength(50)

    const c = await setup(50)
    await c.call('POST', `/api/v1/campaigns/${c.campaign.id}/launch`, { confirm: true })
    await c.sender.drain()
    await c.call('POST', `/api/v1/campaigns/${c.campaign.id}/cancel`)
    c.clock.t += 5 * HOUR
    await c.decide()
    await c.sender.drain()
    expect(c.provider.sent).toHaveLength(10)
    const stats = await c.call('GET', `/api/v1/campaigns/${c.campaign.id}/stats`)
    expect(stats.status).toBe('cancelled')
  })

  test('inputs: variants and ab_test go together, are checked, and freeze at launch', async () => {
    const s = await setup(5)
    const bad: [Record<string, unknown>, string][] = [
      [{ variants: [{ name: 'A', subject: 'x' }] }, 'variants'],
      [
        {
          variants: [
            { name: 'A', subject: 'x' },
            { name: 'a', subject: 'y' },
          ],
        },
        'variants[1].name',
      ],
      [{ variants: [{ name: 'A', subject: 'x' }, { name: 'B' }] }, 'variants[1]'],
      [
        {
          variants: [
            { name: 'A', subject: '{% if %}' },
            { name: 'B', subject: 'y' },
          ],
        },
        'variants[0].subject',
      ],
      [{ ab_test: { test_share: 1.5, metric: 'open_rate', duration: 'PT1H' } }, 'ab_test.test_share'],
      [{ ab_test: { test_share: 0.2, metric: 'reply_rate', duration: 'PT1H' } }, 'ab_test.metric'],
      [{ ab_test: { test_share: 0.2, metric: 'open_rate', duration: '4 hours' } }, 'ab_test.duration'],
      [{ ab_test: null }, 'ab_test'],
      [{ variants: null }, 'variants'],
    ]
    for (const [patch, field] of bad) {
      const r = await s.t.call('PATCH', `/api/v1/campaigns/${s.campaign.id}`, {
        key: s.t.adminKey,
        body: patch,
      })
      expect(r.status, JSON.stringify(patch)).toBe(422)
      expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain(field)
    }
    const plain = await s.call('POST', '/api/v1/campaigns', {
      name: 'Plain',
      list_id: s.list.id,
      subject: 'S',
      body_text: 'x',
    })
    expect(plain).toMatchObject({ variants: null, ab_test: null, ab_test_state: null })
    expect(s.campaign.ab_test).toEqual({ test_share: 0.2, metric: 'open_rate', duration: 'PT4H' })
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/pause`)
    const frozen = await s.t.call('PATCH', `/api/v1/campaigns/${s.campaign.id}`, {
      key: s.t.adminKey,
      body: { ab_test: { test_share: 0.5, metric: 'click_rate', duration: 'PT1H' } },
    })
    expect(frozen.status).toBe(422)
  })
})
