import { afterAll, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { createSmtpProvider, SMTP_CAPABILITIES } from '../../src/channels/smtp'
import type { Channel, ChannelProvider } from '../../src/channels/types'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createTestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { rowOf } from '../helpers/raw-sql'
import { eventually } from '../helpers/receiver'
import { recordingProvider } from '../helpers/sender'
import { startSink } from '../helpers/smtp-sink'

// No head-of-line blocking (issue 15): an SMTP server that takes a connection and never answers
// for one recipient domain. The worker is driven pass by pass on an injected clock; the stalled
// send is bounded by HERALD_SEND_TIMEOUT_MS (real time), the other lanes are not held by it.

const TIMEOUT_MS = 1500
const sink = await startSink({ disabledCommands: ['STARTTLS'] })
const clock = { t: Date.parse('2026-11-23T10:00:00.000Z'), now: () => clock.t }
const t = await createTestApp({ env: { HERALD_SEND_TIMEOUT_MS: String(TIMEOUT_MS) }, clock })
// The real pool, with socket timeouts far beyond the send deadline: the queue's deadline (its
// abort signal) is what closes the stalled connection. Any sender will do here (no DKIM).
const smtp = createSmtpProvider({ url: `smtp://127.0.0.1:${sink.port}`, pool: 2, socketTimeout: 60_000 })
const email: ChannelProvider = {
  ...smtp,
  capabilities: { ...SMTP_CAPABILITIES, needsVerifiedSender: false },
}
const sms = recordingProvider()
const providers = { email, sms, voice: sms, whatsapp: sms, rcs: sms } as Record<Channel, ChannelProvider>
const worker = createSendWorker(t.ctx, sendDeps, { providers })
afterAll(async () => {
  await worker.stop()
  await smtp.close()
  await sink.close()
}, 20_000)

const messageOf = async (to: string) =>
  (await rowOf<{ status: string; attempts: number; error: string | null; at: number | null }>(
    t,
    sql`SELECT status, CAST(attempts AS INTEGER) AS attempts, error, CAST(next_attempt_at AS DOUBLE PRECISION) AS at FROM messages WHERE to_address = ${to}`,
  ))!
const receivedBy = (to: string) => sink.received.filter((m) => m.rcptTo.includes(to))

test('a stalled send holds only its lane; it fails retryably at the deadline; the retry goes through on a fresh connection', async () => {
  sink.stall.add('stall.example')
  const stalled = await campaignTenant(t, ['late@stall.example'])
  const other = await campaignTenant(t, ['b1@ok.example', 'b2@ok.example'])
  // Made now, launched while the stall goes on: only the sending is timed against the deadline.
  const third = await campaignTenant(t, ['c1@ok.example'])
  const smsTenant = await campaignTenant(t, ['s1@sms.example'], {
    channel: 'sms',
    subject: undefined,
    body_html: undefined,
    body_text: 'Hi {{ contact.first_name }}',
  })
  await smsTenant.call('PATCH', `/api/v1/contacts/${smsTenant.contacts['s1@sms.example']}`, {
    phone: '+15005550006',
  })
  await stalled.call('POST', `/api/v1/campaigns/${stalled.campaign.id}/launch`, { confirm: true })
  await other.call('POST', `/api/v1/campaigns/${other.campaign.id}/launch`, { confirm: true })

  // (a) One pass claims both lanes and ends when the healthy one is done, the stalled send still
  // in flight (its message keeps its lease).
  const started = performance.now()
  await worker.runOnce()
  expect(receivedBy('b1@ok.example')).toHaveLength(1)
  expect(receivedBy('b2@ok.example')).toHaveLength(1)
  expect((await messageOf('late@stall.example')).status).toBe('sending')
  expect(sink.stalled).toHaveLength(1)

  // Work queued meanwhile, on another campaign and on another channel, is claimed and sent
  // by the next passes while the stall goes on.
  await third.call('POST', `/api/v1/campaigns/${third.campaign.id}/launch`, { confirm: true })
  await smsTenant.call('POST', `/api/v1/campaigns/${smsTenant.campaign.id}/launch`, { confirm: true })
  // Passes until both are sent (a pass whose lanes are all busy returns at once: let the
  // sockets move in between).
  const done = async () => (await third.status()) === 'sent' && (await smsTenant.status()) === 'sent'
  while (!(await done()) && performance.now() - started < TIMEOUT_MS) {
    await worker.runOnce()
    await Bun.sleep(1)
  }
  expect(receivedBy('c1@ok.example')).toHaveLength(1)
  expect(sms.sent.map((m) => m.to)).toEqual(['+15005550006'])
  expect(await other.status()).toBe('sent')
  // All of that happened before the stalled send's deadline.
  expect((await messageOf('late@stall.example')).status).toBe('sending')
  expect(performance.now() - started).toBeLessThan(TIMEOUT_MS)

  // (b) At the deadline the send fails retryably: queued again with the error, due after the
  // first retry delay, and the stalled connection is closed.
  await worker.drain()
  const elapsed = performance.now() - started
  expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50)
  expect(elapsed).toBeLessThan(TIMEOUT_MS + 5_000)
  const failed = await messageOf('late@stall.example')
  expect(failed).toMatchObject({ status: 'queued', attempts: 1 })
  expect(failed.error).toBe(`smtp: no answer within ${TIMEOUT_MS} ms (send timed out)`)
  expect(failed.at).toBe(clock.t + 5_000)
  expect(await stalled.status()).toBe('sending')
  await eventually(async () => expect(sink.closed.has(sink.stalled[0]!)).toBe(true))

  // (c) The stall ends; at the retry's time the message goes through, on another connection.
  sink.stall.clear()
  clock.t += 5_000
  await worker.drain()
  const delivered = receivedBy('late@stall.example')
  expect(delivered).toHaveLength(1)
  expect(delivered[0]!.session).not.toBe(sink.stalled[0])
  expect(await messageOf('late@stall.example')).toMatchObject({ status: 'delivered', attempts: 2 })
  expect(await stalled.status()).toBe('sent')
}, 20_000)

test('any provider is bounded: a call that never settles is a retryable failure at the deadline', async () => {
  const hang = recordingProvider('capture', () => new Promise(() => {}))
  const app = await createTestApp({ env: { HERALD_SEND_TIMEOUT_MS: '200' }, clock })
  const w = createSendWorker(app.ctx, sendDeps, {
    providers: { email: hang, sms: hang, voice: hang, whatsapp: hang, rcs: hang },
  })
  const s = await campaignTenant(app, ['hang@example.com'])
  await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
  await w.drain()
  const m = await rowOf(
    app,
    sql`SELECT status, CAST(attempts AS INTEGER) AS attempts, error FROM messages WHERE to_address = 'hang@example.com'`,
  )
  expect(m).toEqual({
    status: 'queued',
    attempts: 1,
    error: 'capture: no answer within 200 ms (send timed out)',
  })
  await w.stop()
})
