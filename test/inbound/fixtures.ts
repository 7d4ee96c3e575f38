import { expect } from 'bun:test'
import MailComposer from 'nodemailer/lib/mail-composer'
import type { Outgoing } from '../../src/channels/types'
import type { TestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'

// Real outbox messages to answer (a campaign sent through the recording provider), and real
// RFC 3464 / RFC 5965 reports about them, as receiving MTAs and mailbox providers write them.

export const INBOUND_ENV = { HERALD_INBOUND_DOMAIN: 'in.example.com', HERALD_INBOUND_SMTP_PORT: '0' }

export type EmailOut = Extract<Outgoing, { channel: 'email' }>

/** A tenant, one contact per address, and a campaign to them, sent; the messages as the provider got them. */
export async function sendCampaign(t: TestApp, provider: { sent: Outgoing[] }, emails: string[]) {
  const s = await campaignTenant(t, emails, { subject: 'Hello', body_html: '<p>Hi</p>', body_text: 'Hi' })
  await s.launchAndWait()
  const out: Record<string, EmailOut> = {}
  for (const m of provider.sent) if (m.clientId === s.clientId && m.channel === 'email') out[m.to] = m
  return { ...s, out }
}

/** The mailto: address of a List-Unsubscribe header. */
/** The contact answers `m` with `text`, through POST /inbound/email; the new reply's id. */
export async function replyTo(t: TestApp, m: EmailOut, text: string): Promise<string> {
  const raw = await new MailComposer({ from: m.to, to: m.replyTo!, subject: 'Re: Hello', text })
    .compile()
    .build()
  const r = await t.call('POST', '/api/v1/inbound/email', {
    raw,
    headers: { 'content-type': 'message/rfc822' },
  })
  expect(r.body.data.kind).toBe('reply')
  return r.body.data.reply_id as string
}

export const mailtoOf = (m: EmailOut) => /<mailto:([^>]+)>/.exec(m.headers['List-Unsubscribe']!)![1]!

/** The same VERP address with one digit of its signature changed. */
export const forge = (address: string) =>
  address.replace(/([0-9a-f])@/, (_, c: string) => `${c === '0' ? '1' : '0'}@`)

const crlf = (lines: string[]) => lines.join('\r\n')

/** An RFC 3464 delivery status notification about `m`, as the recipient's MTA returns it. */
export function dsn(
  m: EmailOut,
  o: { action: string; status: string; diagnostic: string; headersOnly?: boolean },
): string {
  const returned = crlf([
    `Message-ID: ${m.messageId}`,
    `From: ${m.from.email}`,
    `To: ${m.to}`,
    `Subject: ${m.subject}`,
  ])
  return crlf([
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
    `To: ${m.envelopeFrom}`,
    'Subject: Undelivered Mail Returned to Sender',
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="DSN-BOUNDARY"',
    '',
    '--DSN-BOUNDARY',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    `I'm sorry to have to inform you that your message could not be delivered to ${m.to}.`,
    '',
    '--DSN-BOUNDARY',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    'Arrival-Date: Mon, 2 Mar 2026 10:00:00 +0000',
    '',
    `Final-Recipient: rfc822; ${m.to}`,
    `Original-Recipient: rfc822; ${m.to}`,
    `Action: ${o.action}`,
    `Status: ${o.status}`,
    'Remote-MTA: dns; mx.example.net',
    // Folded, as MTAs write long diagnostics.
    `Diagnostic-Code: smtp; ${o.diagnostic.replace(' ', '\r\n    ')}`,
    '',
    '--DSN-BOUNDARY',
    o.headersOnly ? 'Content-Type: text/rfc822-headers' : 'Content-Type: message/rfc822',
    '',
    o.headersOnly ? returned : `${returned}\r\n\r\nHi`,
    '',
    '--DSN-BOUNDARY--',
    '',
  ])
}

/** An RFC 5965 abuse report about `m`, as a mailbox provider's feedback loop sends it. */
export function arf(m: EmailOut, feedbackType = 'abuse'): string {
  return crlf([
    'From: Feedback Loop <fbl@isp.example>',
    'To: abuse@in.example.com',
    'Subject: FW: Hello',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="ARF-BOUNDARY"',
    '',
    '--ARF-BOUNDARY',
    'Content-Type: text/plain; charset="US-ASCII"',
    '',
    'This is an email abuse report for an email message received from IP 192.0.2.1.',
    '',
    '--ARF-BOUNDARY',
    'Content-Type: message/feedback-report',
    '',
    `Feedback-Type: ${feedbackType}`,
    'User-Agent: SomeGenerator/1.0',
    'Version: 1',
    'Source-IP: 192.0.2.1',
    `Original-Rcpt-To: ${m.to}`,
    'Arrival-Date: Mon, 2 Mar 2026 10:00:00 +0000',
    '',
    '--ARF-BOUNDARY',
    'Content-Type: message/rfc822',
    'Content-Disposition: inline',
    '',
    `From: ${m.from.email}`,
    `To: ${m.to}`,
    `Message-ID: ${m.messageId}`,
    `Subject: ${m.subject}`,
    '',
    'Hi',
    '',
    '--ARF-BOUNDARY--',
    '',
  ])
}

/** Gmail's way of quoting: the attribution wrapped over two lines, then "> " lines. */
export const QUOTED_REPLY = [
  'Sounds great, please call me on Tuesday.',
  'Ann',
  '',
  'On Mon, Mar 2, 2026 at 10:00 AM Acme Marketing <',
  'reply+0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef@in.example.com>',
  'wrote:',
  '',
  '> Hi',
  '',
].join('\n')
