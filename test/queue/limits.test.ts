import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createTestApp, type TestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { rowOf } from '../helpers/raw-sql'
import { allChannels, recordingProvider } from '../helpers/sender'

// The operator's limits and a suspended client, on a clock the test moves: a message over a
// window's limit waits for the next window instead of failing.

async function appWithClock(env: Record<string, string>) {
  const clock = { t: Date.parse('2026-11-23T10:00:30.000Z'), now: () => clock.t }
  const t = await createTestApp({ env, clock })
  const provider = recordingProvider()
  // Driven pass by pass: what is held stays held however many passes run, until the clock moves.
  const worker = createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider) })
  return { t, clock, provider, worker }
}

const byStatus = async (t: TestApp, key: string, campaignId: string) => {
  const msgs = (await t.call('GET', `/api/v1/messages?campaign_id=${campaignId}&limit=200`, { key })).body
    .data as {
    to: string
    status: string
  }[]
  const out: Record<string, string[]> = {}
  for (const m of msgs) out[m.status] = [...(out[m.status] ?? []), m.to]
  for (const list of Object.values(out)) list.sort()
  return out
}

/** The campaign's `deferred`, as GET /campaigns/{id} answers it. */
const deferred = async (s: Awaited<ReturnType<typeof campaignTenant>>) =>
  (await s.call('GET', `/api/v1/campaigns/${s.campaign.id}`)).deferred

describe('HERALD_DOMAIN_THROTTLE', async () => {
  const { t, clock, provider, worker } = await appWithClock({ HERALD_DOMAIN_THROTTLE: '2' })

  test('at most N a minute to one recipient domain; the rest go in the next minute', async () => {
    const s = await campaignTenant(t, [
      'a1@same.example',
      'a2@same.example',
      'a3@same.example',
      'b1@other.example',
    ])
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await worker.drain()
    expect(await byStatus(t, s.key, s.campaign.id)).toEqual({
      delivered: ['a1@same.example', 'a2@same.example', 'b1@other.example'],
      queued: ['a3@same.example'],
    })
    const waiting = (await rowOf<{ at: number; attempts: number }>(
      t,
      sql`SELECT CAST(next_attempt_at AS DOUBLE PRECISION) AS at, CAST(attempts AS INTEGER) AS attempts
        FROM messages WHERE to_address = 'a3@same.example'`,
    ))!
    expect(new Date(waiting.at).toISOString()).toBe('2026-11-23T10:01:00.000Z')
    expect(waiting.attempts).toBe(0) // waiting for a window is not a failed attempt
    expect(await deferred(s)).toEqual({ count: 1, reason: 'throttle', until: '2026-11-23T10:01:00.000Z' })
    clock.t += 30_000
    await worker.drain()
    expect(await s.status()).toBe('sent')
    expect(await deferred(s)).toBeNull()
    expect(provider.sent.filter((m) => m.clientId === s.clientId)).toHaveLength(4)
  })
})

describe('HERALD_CLIENT_HOURLY_CAP', async () => {
  const { t, clock, worker } = await appWithClock({ HERALD_CLIENT_HOURLY_CAP: '3' })

  test('at most N an hour per client; the rest wait for the next hour; other clients are not held', async () => {
    const s = await campaignTenant(t, [
      'c1@x.example',
      'c2@x.example',
      'c3@x.example',
      'c4@x.example',
      'c5@x.example',
    ])
    const other = await campaignTenant(t, ['o1@y.example'])
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await other.call('POST', `/api/v1/campaigns/${other.campaign.id}/launch`, { confirm: true })
    await worker.drain()
    expect((await byStatus(t, s.key, s.campaign.id)).delivered).toHaveLength(3)
    expect((await byStatus(t, s.key, s.campaign.id)).queued).toHaveLength(2)
    expect(await other.status()).toBe('sent')
    const held = { count: 2, reason: 'hourly_cap', until: '2026-11-23T11:00:00.000Z' }
    expect(await deferred(s)).toEqual(held)
    expect(await deferred(other)).toBeNull()
    // A process started now (its windows new to it) counts the hour's sends from the store: a
    // message due now waits for the next hour as well.
    const restarted = createSendWorker(t.ctx, sendDeps, { providers: allChannels(recordingProvider()) })
    const message = await s.call('POST', '/api/v1/messages', {
      contact_id: s.contacts['c1@x.example'],
      subject: 'Receipt',
      body_text: 'Thanks',
    })
    await restarted.drain()
    expect((await s.call('GET', `/api/v1/messages/${message.id}`)).status).toBe('queued')
    clock.t += 30 * 60_000 + 1 // 10:30:30 — the same hour as sending started: still held
    await worker.drain()
    expect((await byStatus(t, s.key, s.campaign.id)).queued).toHaveLength(2)
    expect(await deferred(s)).toEqual(held)
    clock.t += 30 * 60_000 // 11:00:30 — a new hour
    await worker.drain()
    expect(await s.status()).toBe('sent')
    expect(await deferred(s)).toBeNull()
    expect((await byStatus(t, s.key, s.campaign.id)).delivered).toHaveLength(5)
  })
})

describe('a suspended client', async () => {
  const { t, clock, provider, worker } = await appWithClock({})

  test('its sends stop while it is suspended and resume when it is active again', async () => {
    const s = await campaignTenant(t, ['s1@x.example', 's2@x.example'])
    const patch = (status: string) => t.call('PATCH', `/api/v1/clients/${s.clientId}`, { body: { status } })
    expect((await patch('suspended')).status).toBe(200)
    // The platform operator launches it; the tenant's own keys are refused while suspended.
    const launch = await t.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, {
      body: { confirm: true },
    })
    expect(launch.body.data.status).toBe('sending')
    await worker.drain()
    expect(provider.sent.filter((m) => m.clientId === s.clientId)).toHaveLength(0)
    expect((await byStatus(t, t.adminKey, s.campaign.id)).queued).toHaveLength(2)
    // Suspension is not a sending limit: the campaign's status tells it, not `deferred`.
    const c = await t.call('GET', `/api/v1/campaigns/${s.campaign.id}`)
    expect(c.body.data.deferred).toBeNull()
    expect((await patch('active')).status).toBe(200)
    clock.t += 31_000
    await worker.drain()
    expect(await s.status()).toBe('sent')
    expect(provider.sent.filter((m) => m.clientId === s.clientId)).toHaveLength(2)
  })
})
