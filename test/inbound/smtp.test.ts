import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { createTransport } from 'nodemailer'
import { type InboundSmtp, startInboundSmtp } from '../../src/inbound/smtp-listener'
import { createTestApp } from '../helpers/app'
import { jsonOf, rowOf, rowsOf } from '../helpers/raw-sql'
import { recordingProvider, startTestSender } from '../helpers/sender'
import { arf, dsn, type EmailOut, forge, INBOUND_ENV, mailtoOf, QUOTED_REPLY, sendCampaign } from './fixtures'

const t = await createTestApp({ env: INBOUND_ENV })
const provider = recordingProvider()
startTestSender(t, provider)
let smtp: InboundSmtp
beforeAll(async () => {
  smtp = await startInboundSmtp(t.ctx)
})
afterAll(() => smtp.close())

const transport = () =>
  createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true })
const deliver = (envelope: { from: string; to: string }, raw: string) =>
  transport().sendMail({ envelope, raw })

const EMAILS = ['ann@example.com', 'bob@example.com', 'cy@example.com', 'dee@example.com', 'eve@example.com']
const s = await sendCampaign(t, provider, EMAILS)
const m = (email: string) => s.out[email] as EmailOut
const eventsOf = async (messageId: string, type: string) =>
  (
    await rowsOf<{ data: unknown }>(
      t,
      sql`SELECT data FROM events WHERE message_id = ${messageId} AND type = ${type} ORDER BY seq`,
    )
  ).map((r) => jsonOf<Record<string, unknown>>(r.data))
const suppression = async (email: string) =>
  ((await s.call('GET', '/api/v1/suppressions?limit=200')) as { email: string; source: string }[]).find(
    (x) => x.email === email,
  )
const contactStatus = async (email: string) =>
  (await s.call('GET', `/api/v1/contacts/${s.contacts[email]}`)).status as string

describe('the inbound SMTP listener', () => {
  test('outgoing mail carries the VERP addresses of the inbound domain', () => {
    expect(smtp.port).toBeGreaterThan(0)
    expect(m('ann@example.com').envelopeFrom).toMatch(/^bounce\+[0-9a-f]{64}@in\.example\.com$/)
    expect(m('ann@example.com').replyTo).toMatch(/^reply\+[0-9a-f]{64}@in\.example\.com$/)
    expect(mailtoOf(m('ann@example.com'))).toMatch(/^unsubscribe\+[0-9a-f]{64}@in\.example\.com$/)
  })

  test('a hard 5.1.1 DSN to the bounce address: bounced, event, suppression, contact bounced', async () => {
    const ann = m('ann@example.com')
    const info = await deliver(
      { from: '', to: ann.envelopeFrom },
      dsn(ann, {
        action: 'failed',
        status: '5.1.1',
        diagnostic: '550 5.1.1 <ann@example.com>: user unknown',
      }),
    )
    expect(info.response).toContain('Accepted (bounce)')
    expect((await s.call('GET', `/api/v1/messages/${ann.id}`)).status).toBe('bounced')
    const [ev] = await eventsOf(ann.id, 'email.bounced')
    expect(ev).toMatchObject({
      bounce_type: 'hard',
      status_code: '5.1.1',
      diagnostic: '550 5.1.1 <ann@example.com>: user unknown',
      email: 'ann@example.com',
      message_id: expect.stringMatching(/^msg_/),
      campaign_id: expect.stringMatching(/^cmp_/),
    })
    expect((await suppression('ann@example.com'))?.source).toBe('hard_bounce')
    expect(await contactStatus('ann@example.com')).toBe('bounced')
  })

  test('a soft 4.2.2 DSN (delayed): a soft bounce, no suppression, contact still subscribed', async () => {
    const bob = m('bob@example.com')
    const info = await deliver(
      { from: '', to: bob.envelopeFrom },
      dsn(bob, {
        action: 'delayed',
        status: '4.2.2',
        diagnostic: '452 4.2.2 mailbox full',
        headersOnly: true,
      }),
    )
    expect(info.response).toContain('Accepted (bounce)')
    expect((await eventsOf(bob.id, 'email.bounced'))[0]).toMatchObject({
      bounce_type: 'soft',
      status_code: '4.2.2',
    })
    expect(await suppression('bob@example.com')).toBeUndefined()
    expect(await contactStatus('bob@example.com')).toBe('subscribed')
  })

  test('an ARF abuse report (to any address of the domain): complaint suppression, contact complained', async () => {
    const cy = m('cy@example.com')
    const info = await deliver({ from: 'fbl@isp.example', to: 'abuse@in.example.com' }, arf(cy))
    expect(info.response).toContain('Accepted (complaint)')
    expect((await suppression('cy@example.com'))?.source).toBe('complaint')
    expect(await contactStatus('cy@example.com')).toBe('complained')
  })

  test('a reply with quoted history: stored, reply.received, replied counted', async () => {
    const dee = m('dee@example.com')
    const info = await transport().sendMail({
      from: 'Dee <dee@example.com>',
      to: dee.replyTo!,
      subject: 'Re: Hello',
      text: QUOTED_REPLY,
      inReplyTo: dee.messageId,
      references: [dee.messageId],
    })
    expect(info.response).toContain('Accepted (reply)')
    const replies = await s.call('GET', `/api/v1/replies?campaign_id=${s.campaign.id}`)
    expect(replies).toHaveLength(1)
    expect(replies[0]).toMatchObject({
      client_id: s.clientId,
      message_id: dee.id,
      campaign_id: s.campaign.id,
      contact_id: s.contacts['dee@example.com'],
      from: 'dee@example.com',
      subject: 'Re: Hello',
      snippet: 'Sounds great, please call me on Tuesday. Ann',
    })
    expect(replies[0].body_text).toContain('> Hi')
    const [ev] = await eventsOf(dee.id, 'reply.received')
    expect(ev).toEqual({
      reply_id: expect.stringMatching(/^rpl_[0-9a-f]{32}$/),
      message_id: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
      campaign_id: expect.stringMatching(/^cmp_[0-9a-f]{32}$/),
      contact_id: expect.stringMatching(/^con_[0-9a-f]{32}$/),
      from: 'dee@example.com',
      subject: 'Re: Hello',
      snippet: 'Sounds great, please call me on Tuesday. Ann',
      received_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    })
    expect(ev!.reply_id).toBe(`rpl_${replies[0].id.replaceAll('-', '')}`)
    expect((await s.call('GET', `/api/v1/campaigns/${s.campaign.id}/stats`)).replied).toBe(1)
  })

  test('an auto-reply to the reply address is not a reply', async () => {
    const eve = m('eve@example.com')
    const info = await transport().sendMail({
      from: 'eve@example.com',
      to: eve.replyTo!,
      subject: 'Out of office',
      text: 'I am away until Monday.',
      headers: { 'Auto-Submitted': 'auto-replied' },
    })
    expect(info.response).toContain('Accepted (ignored)')
    expect(await eventsOf(eve.id, 'reply.received')).toHaveLength(0)
  })

  test('mail to the mailto unsubscribe address unsubscribes the contact, attributed to the message', async () => {
    const eve = m('eve@example.com')
    const info = await transport().sendMail({
      from: 'eve@example.com',
      to: mailtoOf(eve),
      subject: 'unsubscribe',
      text: 'unsubscribe',
    })
    expect(info.response).toContain('Accepted (unsubscribe)')
    expect(await contactStatus('eve@example.com')).toBe('unsubscribed')
    expect((await eventsOf(eve.id, 'contact.unsubscribed'))[0]).toMatchObject({ source: 'mailto' })
    expect((await suppression('eve@example.com'))?.source).toBe('unsubscribe')
  })

  test('a forged token is ignored and records nothing', async () => {
    const bob = m('bob@example.com')
    const forged = forge(bob.replyTo!)
    const countEvents = async () =>
      (await rowOf<{ n: number }>(t, sql`SELECT CAST(count(*) AS INTEGER) AS n FROM events`))!.n
    const before = await countEvents()
    const info = await transport().sendMail({ from: 'x@evil.example', to: forged, subject: 'Re', text: 'hi' })
    expect(info.response).toContain('Accepted (ignored)')
    expect(await countEvents()).toBe(before)
    expect(await s.call('GET', `/api/v1/replies?contact_id=${s.contacts['bob@example.com']}`)).toHaveLength(0)
  })

  test('a message over 10 MiB is refused with 552', async () => {
    const big = `From: x@example.org\r\nTo: postmaster@in.example.com\r\nSubject: big\r\n\r\n${'x'.repeat(76).concat('\r\n').repeat(140_000)}`
    const err = await deliver({ from: 'x@example.org', to: 'postmaster@in.example.com' }, big).catch(
      (e: { responseCode?: number }) => e,
    )
    expect((err as { responseCode?: number }).responseCode).toBe(552)
  })

  test('RCPT to another domain is refused with 550', async () => {
    const err = await transport()
      .sendMail({ from: 'x@example.org', to: 'someone@elsewhere.example', subject: 'Hi', text: 'hi' })
      .catch((e: { responseCode?: number }) => e)
    expect((err as { responseCode?: number }).responseCode).toBe(550)
  })
})
