import { afterAll, describe, expect, test } from 'bun:test'
import { dkimVerify } from 'mailauth/lib/dkim/verify'
import { closeProviders, createProviders } from '../../src/channels/registry'
import { createSendThreads } from '../../src/queue/send-threads'
import { startSending } from '../../src/queue/start'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createFeedback } from '../../src/services/messages/feedback'
import { trackingKeyOf } from '../../src/services/tracking/resolve'
import { createTestApp, type TestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { startDnsServer } from '../helpers/dns-server'
import { eventually } from '../helpers/receiver'
import { onlyLogin, type Sink, startSink } from '../helpers/smtp-sink'

// Each client sends through its own accounts: two clients with an SMTP relay each (each its own
// AUTH credentials), campaigns launched at once, on the send threads and on the main thread.
// Each relay receives only its client's mail, logged in with that client's credentials and
// DKIM-signed with its domain; a wrong password fails only that client's messages; a changed
// profile takes hold for the next batch and the old pool is closed. Twilio per client too.

const dns = await startDnsServer()
const sinks: Sink[] = []
afterAll(async () => {
  await Promise.all(sinks.map((s) => s.close()))
})

/** A relay accepting only `user`/`pass`. */
async function relay(user: string, pass: string) {
  const sink = await startSink({ disabledCommands: ['STARTTLS'], onAuth: onlyLogin(user, pass) })
  sinks.push(sink)
  return { sink, url: (password = pass) => `smtp://${user}:${password}@127.0.0.1:${sink.port}` }
}

async function setup(threadCount: number) {
  const instance = await relay('instance', 'instance-pw')
  const t = await createTestApp({
    env: {
      HERALD_SMTP_URL: instance.url(),
      HERALD_DNS_SERVERS: dns.address,
      HERALD_SEND_THREADS: String(threadCount),
      HERALD_SEND_TIMEOUT_MS: '500', // a retired pool closes this long after its last use
      HERALD_WARMUP: 'off',
    },
  })
  const providers = createProviders(t.ctx.config, createFeedback(t.ctx))
  const threads =
    threadCount > 0
      ? createSendThreads({
          config: t.ctx.config,
          key: trackingKeyOf(t.ctx),
          kinds: { email: 'smtp' },
          count: threadCount,
          log: t.ctx.log,
        })
      : null
  // No retries: a refused login fails the message at once, with its reason.
  const worker = createSendWorker(t.ctx, sendDeps, { providers, threads, pollMs: 10, retryDelays: [] })
  worker.start()
  afterAll(async () => {
    await worker.stop()
    await threads?.close()
    await closeProviders(providers)
  }, 20_000)
  return { t, instance }
}

/** A client with a verified, signing domain and a campaign to `emails`, sending through `smtpUrl`. */
async function client(t: TestApp, domain: string, emails: string[], smtpUrl: string) {
  const s = await campaignTenant(t, emails)
  const d = await s.call('POST', '/api/v1/domains', { domain })
  for (const r of d.dns_records as { name: string; value: string; value_parts?: string[] }[])
    dns.zone.set(r.name, [r.value_parts ?? [r.value]])
  expect((await s.call('POST', `/api/v1/domains/${d.id}/verify`)).verified).toBe(true)
  await s.call('POST', '/api/v1/senders', { from_email: `news@${domain}`, from_name: domain })
  await useRelay(t, s.clientId, smtpUrl)
  return s
}

/** Sets the client's email account (a platform admin may name a relay on 127.0.0.1). */
async function useRelay(t: TestApp, clientId: string, smtpUrl: string) {
  const r = await t.call('PUT', `/api/v1/clients/${clientId}/sending`, {
    body: { email: { provider: 'smtp', smtp_url: smtpUrl, pool: 2 } },
  })
  expect(r.status).toBe(200)
}

const signer = async (raw: Buffer) => {
  const { results } = await dkimVerify(raw, {
    resolver: (name: string, type: string) => dns.resolve(name, type),
  } as never)
  return results.map((r) => (r.status.result === 'pass' ? r.signingDomain : r.status.result))
}

for (const threadCount of [2, 0])
  describe(threadCount > 0 ? 'on the send threads' : 'on the main thread', async () => {
    const { t, instance } = await setup(threadCount)
    const [one, two] = [await relay('one', 'pw-one'), await relay('two', 'pw-two')]

    test('two clients at once: each relay gets only its client mail, its login, its DKIM domain', async () => {
      const aTo = ['a0@example.com', 'a1@example.com', 'a2@example.com']
      const bTo = ['b0@example.com', 'b1@example.com', 'b2@example.com']
      const a = await client(t, `a${threadCount}.example`, aTo, one.url())
      const b = await client(t, `b${threadCount}.example`, bTo, two.url())
      await Promise.all([a.launchAndWait(), b.launchAndWait()])

      expect(one.sink.received.map((m) => m.rcptTo[0]).sort()).toEqual(aTo)
      expect(two.sink.received.map((m) => m.rcptTo[0]).sort()).toEqual(bTo)
      expect(instance.sink.received).toEqual([])
      expect(new Set(one.sink.received.map((m) => m.user))).toEqual(new Set(['one']))
      expect(new Set(two.sink.received.map((m) => m.user))).toEqual(new Set(['two']))
      for (const m of one.sink.received) expect(await signer(m.raw)).toEqual([`a${threadCount}.example`])
      for (const m of two.sink.received) expect(await signer(m.raw)).toEqual([`b${threadCount}.example`])
    }, 20_000)

    test('a wrong password fails that client messages naming AUTH; the other client completes', async () => {
      const before = [one.sink.received.length, two.sink.received.length]
      const bad = await client(
        t,
        `bad${threadCount}.example`,
        ['x0@example.com', 'x1@example.com'],
        one.url('wrong'),
      )
      const good = await client(
        t,
        `good${threadCount}.example`,
        ['y0@example.com', 'y1@example.com'],
        two.url(),
      )
      await Promise.all([
        bad.call('POST', `/api/v1/campaigns/${bad.campaign.id}/launch`, { confirm: true }),
        good.launchAndWait(),
      ])
      await eventually(async () => {
        const msgs = await bad.call('GET', `/api/v1/messages?campaign_id=${bad.campaign.id}`)
        expect(msgs.map((m: { status: string }) => m.status)).toEqual(['failed', 'failed'])
        for (const m of msgs) expect(m.error).toContain('AUTH')
      })
      expect(one.sink.received.length).toBe(before[0]!) // nothing got through with the wrong login
      expect(
        two.sink.received
          .slice(before[1])
          .map((m) => m.rcptTo[0])
          .sort(),
      ).toEqual(['y0@example.com', 'y1@example.com'])
      expect(instance.sink.received).toEqual([])
    }, 20_000)

    test('a changed profile takes hold for the next campaign without a restart; the old pool closes', async () => {
      const three = await relay('three', 'pw-three')
      const s = await client(t, `c${threadCount}.example`, ['c0@example.com'], two.url())
      await s.launchAndWait()
      const oldSessions = two.sink.received
        .filter((m) => m.rcptTo[0] === 'c0@example.com')
        .map((m) => m.session)
      expect(oldSessions).toHaveLength(1)

      await useRelay(t, s.clientId, three.url())
      await Bun.sleep(1_100) // profiles are read at most once a second
      const next = await s.call('POST', '/api/v1/campaigns', {
        name: 'Second',
        list_id: s.list.id,
        subject: 'Again',
        body_html: '<p>Again <a href="{{ unsubscribe_url }}">unsubscribe</a></p>',
      })
      await s.call('POST', `/api/v1/campaigns/${next.id}/launch`, { confirm: true })
      await eventually(async () =>
        expect((await s.call('GET', `/api/v1/campaigns/${next.id}`)).status).toBe('sent'),
      )
      expect(three.sink.received.map((m) => [m.rcptTo[0], m.user])).toEqual([['c0@example.com', 'three']])
      // The client's pool to its old relay is closed once the send deadline has passed.
      await eventually(async () => expect(oldSessions.every((id) => two.sink.closed.has(id))).toBe(true))
    }, 20_000)
  })

describe('an instance that sends no SMTP of its own', async () => {
  const t = await createTestApp({
    env: { HERALD_DNS_SERVERS: dns.address, HERALD_SEND_THREADS: '2', HERALD_WARMUP: 'off' },
  })
  const worker = startSending(t.ctx, sendDeps)
  afterAll(() => worker.stop(), 20_000)

  test("a client's own relay gets its mail through send threads started on first use", async () => {
    const own = await relay('own', 'pw-own')
    const s = await client(t, 'own.example', ['o0@example.com', 'o1@example.com'], own.url())
    await s.launchAndWait()
    expect(own.sink.received.map((m) => [m.rcptTo[0], m.user]).sort()).toEqual([
      ['o0@example.com', 'own'],
      ['o1@example.com', 'own'],
    ])
    for (const m of own.sink.received) expect(await signer(m.raw)).toEqual(['own.example'])
  }, 20_000)
})
