import { afterAll, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { dkimVerify } from 'mailauth/lib/dkim/verify'
import { createProviders } from '../../src/channels/registry'
import type { Channel, ChannelProvider } from '../../src/channels/types'
import type { ContactRow, MessageRow } from '../../src/db/schema'
import { mapInOrder } from '../../src/lib/in-order'
import type { SendPlan } from '../../src/queue/plan'
import { createSendThreads } from '../../src/queue/send-threads'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createFeedback } from '../../src/services/messages/feedback'
import { trackingKeyOf } from '../../src/services/tracking/resolve'
import { createTestApp, type TestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { startDnsServer } from '../helpers/dns-server'
import { rowOf } from '../helpers/raw-sql'
import { eventually } from '../helpers/receiver'
import { messageIdOf, startSink } from '../helpers/smtp-sink'

// The send threads (issue 15): with SMTP configured, each message is composed (render, tracking,
// List-Unsubscribe, MIME), DKIM-signed and sent on a worker thread with its own SMTP pool; the
// main thread claims and records. Real threads, a real smtp-server sink, the sender's domain
// verified against a real DNS server, every received message checked with mailauth. The main
// thread's own smtp provider refuses to send, so a message that was not sent from a thread
// would fail the test.

const dns = await startDnsServer()
const sink = await startSink({ disabledCommands: ['STARTTLS'] })
const clock = { t: Date.parse('2026-11-23T10:00:00.000Z'), now: () => clock.t }
const cleanups: (() => Promise<unknown>)[] = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
  await sink.close()
}, 20_000)

async function setup(threadCount: number, kind = 'smtp', sendTimeoutMs = 60_000, batchSize?: number) {
  const t = await createTestApp({
    env: {
      HERALD_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      HERALD_DNS_SERVERS: dns.address,
      HERALD_INBOUND_DOMAIN: 'in.herald.example',
      // The dying-thread test holds stalled sends until it ends the thread: no deadline before.
      HERALD_SEND_TIMEOUT_MS: String(sendTimeoutMs),
      HERALD_WARMUP: 'off', // a new signing domain's daily cap is not what this tests
    },
    clock,
  })
  const providers = createProviders(t.ctx.config, createFeedback(t.ctx))
  const mainSmtp = providers.email
  const email: ChannelProvider = {
    ...mainSmtp,
    send: () => Promise.reject(new Error('the main thread must not send SMTP mail')),
  }
  const all = { ...providers, email } as Record<Channel, ChannelProvider>
  const threads = createSendThreads({
    config: t.ctx.config,
    key: trackingKeyOf(t.ctx),
    kinds: { email: kind },
    count: threadCount,
    log: t.ctx.log,
  })
  const worker = createSendWorker(t.ctx, sendDeps, { providers: all, threads, batchSize })
  cleanups.push(async () => {
    await worker.stop()
    await threads.close()
    await mainSmtp.close()
  })
  return { t, threads, worker }
}

/** A tenant with a verified, DKIM-signing sender and a campaign to `emails`. */
async function signingTenant(t: TestApp, emails: string[], domain: string) {
  const s = await campaignTenant(t, emails, {
    subject: 'Spring for {{ contact.first_name }}',
    body_html:
      '<html><body><p>Hello {{ contact.first_name }}</p><a href="https://news.example/offer">Offer</a> <a href="{{ unsubscribe_url }}">Unsubscribe</a></body></html>',
  })
  const d = await s.call('POST', '/api/v1/domains', { domain })
  for (const r of d.dns_records as { name: string; value: string; value_parts?: string[] }[])
    dns.zone.set(r.name, [r.value_parts ?? [r.value]])
  expect((await s.call('POST', `/api/v1/domains/${d.id}/verify`)).verified).toBe(true)
  await s.call('POST', '/api/v1/senders', { from_email: `offers@${domain}`, from_name: 'Acme News' })
  return s
}

const headerOf = (raw: Buffer, name: string) => {
  const head = raw
    .toString('latin1')
    .split('\r\n\r\n')[0]!
    .replace(/\r\n[ \t]+/g, ' ')
  return head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name}:`)) ?? null
}

test('a campaign composed, signed and sent on two threads: every message DKIM-valid with List-Unsubscribe(-Post) signed', async () => {
  const { t, worker } = await setup(2)
  const emails = Array.from({ length: 40 }, (_, i) => `r${i}@threads.example`)
  const s = await signingTenant(t, emails, 'news.example')
  await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
  await worker.drain()

  const got = sink.received.filter((m) => m.rcptTo[0]!.endsWith('@threads.example'))
  expect(got.map((m) => m.rcptTo[0]).sort()).toEqual([...emails].sort())
  // The threads share HERALD_SMTP_POOL (5) connections between them.
  expect(new Set(got.map((m) => m.session)).size).toBeLessThanOrEqual(t.ctx.config.smtpPool)
  const api = (await s.call('GET', `/api/v1/messages?campaign_id=${s.campaign.id}&limit=100`)) as {
    message_id: string
    to: string
    status: string
  }[]
  for (const m of got) {
    const { results } = await dkimVerify(m.raw, {
      resolver: (name: string, type: string) => dns.resolve(name, type),
    } as never)
    expect(results).toHaveLength(1)
    expect(results[0]!.status.result).toBe('pass')
    expect(results[0]!.signingDomain).toBe('news.example')
    const signed = /\bh=([^;]+)/.exec(headerOf(m.raw, 'dkim-signature')!.replace(/\s+/g, ''))![1]!.split(':')
    expect(signed.map((h) => h.toLowerCase())).toEqual(
      expect.arrayContaining(['from', 'subject', 'message-id', 'list-unsubscribe', 'list-unsubscribe-post']),
    )
    expect(headerOf(m.raw, 'list-unsubscribe')).toMatch(
      /^List-Unsubscribe: <http:\/\/localhost:8080\/u\/[\w-]+\.[\w-]+>, <mailto:unsubscribe\+[0-9a-f]{64}@in\.herald\.example>$/,
    )
    expect(headerOf(m.raw, 'list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click')
    expect(m.mailFrom).toMatch(/^bounce\+[0-9a-f]{64}@in\.herald\.example$/)
    // Personalised on the thread, and recorded on the main thread under the Message-ID it sent.
    const i = emails.indexOf(m.rcptTo[0]!)
    expect(headerOf(m.raw, 'subject')).toBe(`Subject: Spring for P${i}`)
    const row = api.find((a) => a.to === m.rcptTo[0])!
    expect(messageIdOf(m.raw)).toBe(row.message_id)
    expect(row.status).toBe('delivered')
  }
  expect(await s.status()).toBe('sent')
  expect(await s.call('GET', `/api/v1/campaigns/${s.campaign.id}/stats`)).toMatchObject({
    sent: 40,
    delivered: 40,
  })
  // What GET /messages/{id} shows of a sent message comes back from the thread: its headers.
  const one = await s.call('GET', `/api/v1/messages/${(api[0] as unknown as { id: string }).id}`)
  expect(one.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click')
  expect(one.subject).toMatch(/^Spring for P\d+$/)
}, 30_000)

test('a thread that dies mid-batch: its sends in flight stay leased, nothing is lost or sent twice, and they go out after the lease with the same Message-ID', async () => {
  const { t, threads, worker } = await setup(1)
  const ok = Array.from({ length: 6 }, (_, i) => `ok${i}@crash.example`)
  const stalled = ['late0@stall.example', 'late1@stall.example']
  sink.stall.add('stall.example')
  const s = await signingTenant(t, [...ok, ...stalled], 'crash.example')
  await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })

  // One pass claims all eight; six are answered, two hang on a server that never replies.
  const pass = worker.runOnce()
  const received = (domain: string) => sink.received.filter((m) => m.rcptTo[0]!.endsWith(domain))
  await eventually(async () => {
    expect(received('@crash.example')).toHaveLength(6)
    expect(sink.stalled).toHaveLength(2)
    // The six answers are back on the main thread (a server's 250 reaches the thread a moment
    // after the sink has the message; one the thread dies before answering stays leased too).
    expect(threads.inFlight()).toBe(2)
  })
  const row = async (to: string) =>
    (await rowOf<{ id: string; status: string; attempts: number; error: string | null }>(
      t,
      sql`SELECT id, status, CAST(attempts AS INTEGER) AS attempts, error FROM messages WHERE to_address = ${to}`,
    ))!
  expect(await mapInOrder(stalled, async (to) => (await row(to)).status)).toEqual(['sending', 'sending'])

  // The thread dies. Its batch ends: the six answered are recorded, the two it owed are not.
  threads.kill(0)
  await pass
  for (const to of ok) expect((await row(to)).status).toBe('delivered')
  for (const to of stalled)
    expect(await row(to)).toMatchObject({ status: 'sending', attempts: 1, error: null })
  // A new thread takes its place.
  await eventually(async () => expect(threads.alive()).toBe(1))

  // While the lease holds nothing is sent again, even with the server answering again.
  sink.stall.clear()
  await worker.drain()
  expect(received('@stall.example')).toHaveLength(0)
  expect(await s.status()).toBe('sending')

  // After the lease (5 minutes) they are sent, once each, with the Message-ID of their row.
  clock.t += 5 * 60_000 + 1
  await worker.drain()
  const late = received('@stall.example')
  expect(late.map((m) => m.rcptTo[0]).sort()).toEqual(stalled)
  for (const m of late) {
    const r = await row(m.rcptTo[0]!)
    expect(messageIdOf(m.raw)).toBe(`<${r.id}@crash.example>`)
    expect(r).toMatchObject({ status: 'delivered', attempts: 2 })
  }
  expect(received('@crash.example')).toHaveLength(6) // nobody got a second copy
  expect(await s.status()).toBe('sent')
}, 30_000)

test('a thread that dies with two batches of a lane in flight: nothing is lost or sent twice', async () => {
  // The running loop claims a lane's next batch once its batch has started every send, so a
  // thread may owe sends of two batches when it dies. Batches of 4: late0 is in the first,
  // late1 in the second, and both hang on a server that never replies.
  const { t, threads, worker } = await setup(1, 'smtp', 60_000, 4)
  const ok = Array.from({ length: 10 }, (_, i) => `ok${i}@two.example`)
  const emails = ['late0@stall2.example', ...ok.slice(0, 3), 'late1@stall2.example', ...ok.slice(3)]
  sink.stall.add('stall2.example')
  const s = await signingTenant(t, emails, 'two.example')
  const received = (domain: string) =>
    sink.received.filter((m) => m.rcptTo[0]!.endsWith(domain)).map((m) => m.rcptTo[0]!)
  const stalledBefore = sink.stalled.length
  await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
  worker.start()

  // The second batch went out while the first still waited for late0; the third waits for one
  // of them to end (two batches of a lane at most).
  await eventually(async () => {
    expect(sink.stalled.length - stalledBefore).toBe(2)
    expect(received('@two.example').sort()).toEqual(ok.slice(0, 6).sort())
    expect(threads.inFlight()).toBe(2)
  })
  const row = async (to: string) =>
    (await rowOf<{ id: string; status: string; attempts: number }>(
      t,
      sql`SELECT id, status, CAST(attempts AS INTEGER) AS attempts FROM messages WHERE to_address = ${to}`,
    ))!

  // The thread dies: both batches end, the two sends it owed stay leased, the third batch goes
  // out on the new thread.
  threads.kill(0)
  await eventually(async () => {
    for (const to of ok) expect((await row(to)).status).toBe('delivered')
  })
  for (const to of ['late0@stall2.example', 'late1@stall2.example'])
    expect(await row(to)).toMatchObject({ status: 'sending', attempts: 1 })

  // After the lease each goes out once, with its row's Message-ID; nobody got two.
  sink.stall.delete('stall2.example')
  clock.t += 5 * 60_000 + 1
  worker.kick()
  await eventually(async () => expect(await s.status()).toBe('sent'))
  const late = sink.received.filter((m) => m.rcptTo[0]!.endsWith('@stall2.example'))
  expect(late.map((m) => m.rcptTo[0]).sort()).toEqual(['late0@stall2.example', 'late1@stall2.example'])
  for (const m of late) {
    const r = await row(m.rcptTo[0]!)
    expect(messageIdOf(m.raw)).toBe(`<${r.id}@two.example>`)
    expect(r).toMatchObject({ status: 'delivered', attempts: 2 })
  }
  expect(received('@two.example').sort()).toEqual([...ok].sort())
}, 30_000)

test('a thread that cannot start sent nothing: its sends are refused retryably, with the reason', async () => {
  // The thread makes its provider from the configuration; this kind does not exist there.
  const { t, threads, worker } = await setup(1, 'no-such-provider')
  const s = await signingTenant(t, ['first@nostart.example'], 'nostart.example')
  await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
  await worker.runOnce()
  const m = await rowOf(
    t,
    sql`SELECT status, CAST(attempts AS INTEGER) AS attempts, error FROM messages WHERE to_address = 'first@nostart.example'`,
  )
  expect(m).toEqual({
    status: 'queued',
    attempts: 1,
    error: 'the send thread could not start: unknown provider "no-such-provider"',
  })
  expect(threads.alive()).toBeLessThanOrEqual(1)
}, 30_000)

test('a send that stalls on a thread is bounded by the send deadline there: retried, its connection closed', async () => {
  const { t, worker } = await setup(1, 'smtp', 1000)
  sink.stall.add('hang.example')
  const s = await signingTenant(t, ['slow@hang.example', 'fast@quick.example'], 'deadline.example')
  await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
  const stalledBefore = sink.stalled.length
  await worker.drain()
  sink.stall.delete('hang.example')
  const row = async (to: string) =>
    await rowOf(
      t,
      sql`SELECT status, CAST(attempts AS INTEGER) AS attempts, error FROM messages WHERE to_address = ${to}`,
    )
  expect(await row('fast@quick.example')).toMatchObject({ status: 'delivered' })
  expect(await row('slow@hang.example')).toEqual({
    status: 'queued',
    attempts: 1,
    error: 'smtp: no answer within 1000 ms (send timed out)',
  })
  const session = sink.stalled[stalledBefore]!
  await eventually(async () => expect(sink.closed.has(session)).toBe(true))
}, 30_000)

test('more distinct plans at once than the threads keep (each reply of a sequence has its own): every send goes out with its own headers', async () => {
  // A sequence's follow-up carries the In-Reply-To of its contact's first email, so each message
  // is a plan of its own. Past the plans the threads keep, they forget them all; sends numbered
  // before that, still waiting for a thread or queued for one, must still find their plan.
  const { threads } = await setup(2)
  const count = 1_100
  const sender = { fromEmail: 'hello@plans.example', fromName: 'Plans', replyTo: null }
  const results = await Promise.all(
    Array.from({ length: count }, (_, i) => {
      const to = `p${i}@plans.example`
      const plan = {
        channel: 'email',
        content: {},
        sender,
        dkim: null,
        warmup: null,
        clientSuspended: false,
        idDomain: 'plans.example',
        variables: {},
        bulk: false,
        headers: { 'In-Reply-To': `<first-${i}@plans.example>` },
      } as unknown as SendPlan
      const message = { id: `m-${i}`, clientId: 'c', to } as MessageRow
      const contact = { email: to, phone: null } as ContactRow
      const rendered = { subject: `Re: First ${i}`, body_html: null, body_text: 'two' }
      return threads.send(plan, message, contact, false, rendered, 'https://plans.example/u')
    }),
  )
  expect(results.filter((r) => r.kind !== 'sent')).toEqual([])
  const mine = sink.received.filter((m) => m.rcptTo[0]!.endsWith('@plans.example'))
  expect(mine).toHaveLength(count)
  for (const m of mine) {
    const i = m.rcptTo[0]!.slice(1, -'@plans.example'.length)
    expect(headerOf(m.raw, 'in-reply-to')).toBe(`In-Reply-To: <first-${i}@plans.example>`)
  }
}, 60_000)
