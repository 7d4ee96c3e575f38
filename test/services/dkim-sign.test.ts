import { describe, expect, test } from 'bun:test'
import { dkimVerify } from 'mailauth/lib/dkim/verify'
import MailComposer from 'nodemailer/lib/mail-composer'
import { withActor } from '../../src/context'
import { systemActor } from '../../src/services/actors/actor'
import { dkimForSender, signMessage } from '../../src/services/domains/dkim'
import { deleteDomain } from '../../src/services/domains/read'
import { createTestApp } from '../helpers/app'
import { startDnsServer } from '../helpers/dns-server'

// A message signed by Herald verifies with mailauth (an independent DKIM implementation)
// against the key published in a real DNS server as several strings.

const dns = await startDnsServer()
const t = await createTestApp({ env: { HERALD_DNS_SERVERS: dns.address } })
const acme = await t.client('Acme')
const acmeAdmin = await t.key({ scopes: ['admin:*'], clientId: acme })

interface DnsRecord {
  purpose: string
  name: string
  value: string
  value_parts?: string[]
}

async function verifiedDomain(domain: string) {
  const created = await t.call('POST', '/api/v1/domains', { key: acmeAdmin, body: { domain } })
  const records: DnsRecord[] = created.body.data.dns_records
  for (const r of records) dns.zone.set(r.name, [r.value_parts ?? [r.value]])
  const verified = await t.call('POST', `/api/v1/domains/${created.body.data.id}/verify`, { key: acmeAdmin })
  expect(verified.body.data.verified).toBe(true)
  return verified.body.data as { id: string; dkim_selector: string; dns_records: DnsRecord[] }
}

function compose(from: string): Promise<Buffer> {
  return new MailComposer({
    from: `Acme News <${from}>`,
    to: 'ann@customer.example',
    subject: 'Spring offers for you',
    messageId: '<0193a1b2-c3d4@herald.example>',
    html: '<p>Hello Ann</p>',
    text: 'Hello Ann',
    headers: {
      'List-Unsubscribe': '<https://herald.example/u/tok123>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  })
    .compile()
    .build()
}

const verifyWithMailauth = (message: Buffer) =>
  dkimVerify(message, { resolver: (name: string, type: string) => dns.resolve(name, type) } as never)

describe('DKIM signing for the campaign engine', () => {
  test('signs with the verified domain’s key, covering List-Unsubscribe and List-Unsubscribe-Post; mailauth says pass', async () => {
    const domain = await verifiedDomain('news.example')
    const dkim = await dkimForSender(t.ctx, acme, 'offers@news.example')
    expect(dkim).not.toBeNull()
    expect(dkim).toMatchObject({ domainName: 'news.example', keySelector: domain.dkim_selector })
    const signed = await signMessage(await compose('offers@news.example'), dkim!)
    const result = await verifyWithMailauth(signed)
    expect(result.results).toHaveLength(1)
    const r = result.results[0]!
    expect(r.status.result).toBe('pass')
    expect(r.signingDomain).toBe('news.example')
    expect(r.selector).toBe(domain.dkim_selector)
    const signedHeaders = r
      .signingHeaders!.keys.toLowerCase()
      .split(':')
      .map((h: string) => h.trim())
    expect(signedHeaders).toEqual(
      expect.arrayContaining(['from', 'subject', 'list-unsubscribe', 'list-unsubscribe-post', 'message-id']),
    )
  })

  test('a changed List-Unsubscribe header after signing fails verification', async () => {
    const dkim = (await dkimForSender(t.ctx, acme, 'offers@news.example'))!
    const signed = (await signMessage(await compose('offers@news.example'), dkim)).toString()
    const tampered = signed.replace('https://herald.example/u/tok123', 'https://evil.example/u/tok123')
    const result = await verifyWithMailauth(Buffer.from(tampered))
    expect(result.results[0]?.status.result).toBe('fail')
  })

  test('a subdomain address signs with its verified parent domain', async () => {
    const dkim = await dkimForSender(t.ctx, acme, 'team@mail.news.example')
    expect(dkim?.domainName).toBe('news.example')
    const signed = await signMessage(await compose('team@mail.news.example'), dkim!)
    expect((await verifyWithMailauth(signed)).results[0]?.status.result).toBe('pass')
  })

  test('no key for unverified domains or other clients', async () => {
    const created = await t.call('POST', '/api/v1/domains', {
      key: acmeAdmin,
      body: { domain: 'unverified.example' },
    })
    expect(created.status).toBe(200)
    expect(await dkimForSender(t.ctx, acme, 'a@unverified.example')).toBeNull()
    expect(await dkimForSender(t.ctx, await t.client('Other'), 'offers@news.example')).toBeNull()
    expect(await dkimForSender(t.ctx, acme, 'not-an-address')).toBeNull()
  })

  test('the key record of a deleted domain no longer signs', async () => {
    const domain = await verifiedDomain('gone.example')
    const ctx = withActor(t.ctx, { ...systemActor('k'), clientId: acme }, 'r')
    await deleteDomain(ctx, domain.id)
    expect(await dkimForSender(t.ctx, acme, 'x@gone.example')).toBeNull()
  })
})
