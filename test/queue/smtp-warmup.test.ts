import { afterAll, expect, test } from 'bun:test'
import { closeProviders, createProviders } from '../../src/channels/registry'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createFeedback } from '../../src/services/messages/feedback'
import { createTestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { startDnsServer } from '../helpers/dns-server'
import { startSink } from '../helpers/smtp-sink'

// Warm-up over real SMTP, on a clock the test moves: a smtp-server listener receives, each
// client's domain verified against a real DNS server. A warming domain's campaign says what
// waits for the next UTC day and until when; a domain whose warm-up is off sends it all at once.

const dns = await startDnsServer()
const sink = await startSink({ disabledCommands: ['STARTTLS'] }) // plain SMTP on loopback
const clock = { t: Date.parse('2026-11-23T21:00:00.000Z'), now: () => clock.t }
const t = await createTestApp({
  clock,
  env: { HERALD_SMTP_URL: `smtp://127.0.0.1:${sink.port}`, HERALD_DNS_SERVERS: dns.address },
})
const providers = createProviders(t.ctx.config, createFeedback(t.ctx))
afterAll(async () => {
  await closeProviders(providers)
  await sink.close()
}, 20_000)
const drain = () => createSendWorker(t.ctx, sendDeps, { providers }).drain()

/** A client whose 60-recipient campaign sends from its own verified `domain`. */
async function campaignFrom(domain: string, local: string) {
  const s = await campaignTenant(
    t,
    Array.from({ length: 60 }, (_, i) => `${local}${i}@customer.example`),
  )
  const dom = await s.call('POST', '/api/v1/domains', { domain })
  for (const r of dom.dns_records as { name: string; value: string; value_parts?: string[] }[])
    dns.zone.set(r.name, [r.value_parts ?? [r.value]])
  expect((await s.call('POST', `/api/v1/domains/${dom.id}/verify`)).verified).toBe(true)
  const sender = await s.call('POST', '/api/v1/senders', { from_email: `news@${domain}`, from_name: 'News' })
  await s.call('PATCH', `/api/v1/campaigns/${s.campaign.id}`, { sender_id: sender.id })
  const current = async () => s.call('GET', `/api/v1/campaigns/${s.campaign.id}`)
  const received = () => sink.received.filter((m) => m.rcptTo[0]!.startsWith(local)).length
  return { ...s, dom, current, received }
}

test("a warming domain's campaign says it waits for warm-up until midnight UTC, then nothing", async () => {
  const s = await campaignFrom('warming.example', 'w')
  await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
  await drain()
  expect(s.received()).toBe(50)
  expect(await s.current()).toMatchObject({
    status: 'sending',
    deferred: { count: 10, reason: 'warmup', until: '2026-11-24T00:00:00.000Z' },
  })

  clock.t = Date.parse('2026-11-24T00:00:00.000Z')
  await drain()
  expect(s.received()).toBe(60)
  expect(await s.current()).toMatchObject({ status: 'sent', deferred: null })
})

test('a domain whose warm-up is off sends everything at once', async () => {
  const s = await campaignFrom('reputed.example', 'r')
  expect((await s.call('PATCH', `/api/v1/domains/${s.dom.id}`, { warmup: false })).warmup).toBe(false)
  await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
  await drain()
  expect(s.received()).toBe(60)
  expect(await s.current()).toMatchObject({ status: 'sent', deferred: null })
})
