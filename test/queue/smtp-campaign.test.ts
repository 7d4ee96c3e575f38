import { afterAll, expect, test } from 'bun:test'
import { dkimVerify } from 'mailauth/lib/dkim/verify'
import { simpleParser } from 'mailparser'
import { closeProviders, createProviders } from '../../src/channels/registry'
import { startSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createFeedback } from '../../src/services/messages/feedback'
import { createTestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { startDnsServer } from '../helpers/dns-server'
import { startSink } from '../helpers/smtp-sink'

// A campaign through the whole engine over real SMTP: the providers made from the configuration,
// a smtp-server listener receiving, the sender's domain verified against a real DNS server. The
// received MIME is read with mailparser and its DKIM signature checked with mailauth.

const dns = await startDnsServer()
const sink = await startSink({ disabledCommands: ['STARTTLS'] }) // plain SMTP on loopback
afterAll(() => sink.close())
const t = await createTestApp({
  env: {
    HERALD_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
    HERALD_DNS_SERVERS: dns.address,
    HERALD_INBOUND_DOMAIN: 'in.herald.example',
  },
})
const providers = createProviders(t.ctx.config, createFeedback(t.ctx))
const worker = startSendWorker(t.ctx, sendDeps, { providers, pollMs: 10 })
afterAll(async () => {
  await worker.stop()
  await closeProviders(providers)
}, 20_000)

test('personalised, DKIM-signed (List-Unsubscribe and -Post covered), with VERP and tracking', async () => {
  const s = await campaignTenant(t, ['ann@customer.example', 'bob@customer.example'], {
    subject: 'Spring for {{ contact.first_name }}',
    body_html:
      '<html><body><p>Hello {{ contact.first_name }}</p><a href="https://news.example/offer">Offer</a> <a href="{{ unsubscribe_url }}">Unsubscribe</a></body></html>',
  })
  const domain = await s.call('POST', '/api/v1/domains', { domain: 'news.example' })
  for (const r of domain.dns_records as { name: string; value: string; value_parts?: string[] }[])
    dns.zone.set(r.name, [r.value_parts ?? [r.value]])
  expect((await s.call('POST', `/api/v1/domains/${domain.id}/verify`)).verified).toBe(true)
  await s.call('POST', '/api/v1/senders', { from_email: 'offers@news.example', from_name: 'Acme News' })
  await s.launchAndWait()

  expect(sink.received.map((m) => m.rcptTo[0]).sort()).toEqual([
    'ann@customer.example',
    'bob@customer.example',
  ])
  const got = sink.received.find((m) => m.rcptTo[0] === 'ann@customer.example')!
  expect(got.mailFrom).toMatch(/^bounce\+[0-9a-f]{64}@in\.herald\.example$/)
  const mail = await simpleParser(got.raw)
  expect(mail.subject).toBe('Spring for P0')
  expect(mail.from?.value).toEqual([{ name: 'Acme News', address: 'offers@news.example' }])
  expect(mail.replyTo?.value[0]?.address).toMatch(/^reply\+[0-9a-f]{64}@in\.herald\.example$/)
  expect(mail.messageId).toMatch(/^<[0-9a-f-]{36}@news\.example>$/)
  expect(mail.html).toContain('<p>Hello P0</p>')
  expect(mail.html).toMatch(/href="http:\/\/localhost:8080\/t\/c\/[\w-]+\.[\w-]+"/)
  expect(mail.html).toMatch(/<img src="http:\/\/localhost:8080\/t\/o\//)
  expect(mail.text).toContain('Hello P0')
  const header = (name: string) =>
    (mail.headerLines.find((h) => h.key === name)?.line ?? '').replace(/\r\n[ \t]+/g, ' ')
  expect(header('list-unsubscribe')).toMatch(
    /^List-Unsubscribe: <http:\/\/localhost:8080\/u\/[\w-]+\.[\w-]+>, <mailto:unsubscribe\+[0-9a-f]{64}@in\.herald\.example>$/,
  )
  expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click')

  const { results } = await dkimVerify(got.raw, {
    resolver: (name: string, type: string) => dns.resolve(name, type),
  } as never)
  expect(results).toHaveLength(1)
  expect(results[0]!.status.result).toBe('pass')
  expect(results[0]!.signingDomain).toBe('news.example')
  const signed = /\bh=([^;]+)/
    .exec(header('dkim-signature').replace(/\s+/g, ''))![1]!
    .toLowerCase()
    .split(':')
  expect(signed).toContain('list-unsubscribe')
  expect(signed).toContain('list-unsubscribe-post')

  // The message id on the wire is the one the API reports.
  const msgs = await s.call('GET', `/api/v1/messages?campaign_id=${s.campaign.id}`)
  expect(msgs.map((m: { message_id: string }) => m.message_id)).toContain(mail.messageId)
  expect(await s.call('GET', `/api/v1/campaigns/${s.campaign.id}/stats`)).toMatchObject({
    sent: 2,
    delivered: 2,
  })
}, 20_000)
