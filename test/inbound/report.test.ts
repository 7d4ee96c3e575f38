import { describe, expect, test } from 'bun:test'
import { autoReplyReason, headerRecipients, parseMail, reportKindOf } from '../../src/services/inbound/mail'
import { bounceOf, feedbackTypeOf, fieldsOf } from '../../src/services/inbound/report'
import { findVerp } from '../../src/services/inbound/verp'

const TOKEN = 'ab'.repeat(32)

describe('delivery-status fields (RFC 3464)', () => {
  const status = (...recipients: string[]) =>
    ['Reporting-MTA: dns; mx.example.net', '', ...recipients.flatMap((r) => [r, ''])].join('\r\n')

  test('folded fields are joined; the first of a repeated name wins', () => {
    const f = fieldsOf(
      'Diagnostic-Code: smtp; 550 5.1.1\r\n   user unknown\r\nStatus: 5.1.1\r\nStatus: 4.0.0',
    )
    expect(f.get('diagnostic-code')).toBe('smtp; 550 5.1.1 user unknown')
    expect(f.get('status')).toBe('5.1.1')
  })

  const rows: [string, string[], unknown][] = [
    [
      'failed 5.x.x → hard, diagnostic type dropped',
      ['Final-Recipient: rfc822; a@x.y\r\nAction: failed\r\nStatus: 5.1.1\r\nDiagnostic-Code: smtp; 550 no'],
      { type: 'hard', statusCode: '5.1.1', diagnostic: '550 no' },
    ],
    [
      'failed 4.x.x (retries expired) → soft',
      ['Final-Recipient: rfc822; a@x.y\r\nAction: failed\r\nStatus: 4.4.7 (delivery time expired)'],
      { type: 'soft', statusCode: '4.4.7', diagnostic: null },
    ],
    [
      'failed without Status → hard',
      ['Final-Recipient: rfc822; a@x.y\r\nAction: failed'],
      { type: 'hard', statusCode: null, diagnostic: null },
    ],
    [
      'delayed → soft',
      ['Final-Recipient: rfc822; a@x.y\r\nAction: delayed\r\nStatus: 4.2.2'],
      { type: 'soft', statusCode: '4.2.2', diagnostic: null },
    ],
    [
      'a failed recipient outranks an earlier delayed one',
      [
        'Final-Recipient: rfc822; a@x.y\r\nAction: delayed\r\nStatus: 4.2.2',
        'Final-Recipient: rfc822; b@x.y\r\nAction: Failed\r\nStatus: 5.7.1',
      ],
      { type: 'hard', statusCode: '5.7.1', diagnostic: null },
    ],
    ['delivered → nothing', ['Final-Recipient: rfc822; a@x.y\r\nAction: delivered\r\nStatus: 2.0.0'], null],
    ['relayed → nothing', ['Final-Recipient: rfc822; a@x.y\r\nAction: relayed\r\nStatus: 2.0.0'], null],
  ]
  for (const [name, recipients, expected] of rows)
    test(name, () => {
      expect(bounceOf(status(...recipients))).toEqual(expected as never)
    })

  test('Feedback-Type of an ARF report', () => {
    expect(feedbackTypeOf('Feedback-Type: Abuse\r\nVersion: 1\r\n')).toBe('abuse')
    expect(feedbackTypeOf('Version: 1\r\n')).toBeNull()
  })
})

describe('reading the message', () => {
  test('VERP addresses: our domain only, any case, angle brackets tolerated', () => {
    expect(findVerp([`x@y.z`, `<Reply+${TOKEN.toUpperCase()}@IN.example.com>`], 'in.example.com')).toEqual({
      purpose: 'reply',
      token: TOKEN,
      address: `Reply+${TOKEN.toUpperCase()}@IN.example.com`,
    })
    expect(findVerp([`reply+${TOKEN}@other.example`], 'in.example.com')).toBeNull()
    expect(findVerp([`reply+${TOKEN.slice(2)}@in.example.com`], 'in.example.com')).toBeNull()
    expect(findVerp([`spam+${TOKEN}@in.example.com`], 'in.example.com')).toBeNull()
  })

  test('without an envelope, Delivered-To and X-Original-To come before To and Cc', async () => {
    const mail = await parseMail(
      'Delivered-To: reply+1@in.example.com\r\nX-Original-To: b@in.example.com\r\nTo: "Team" <c@x.y>, Grp: d@x.y;\r\nCc: e@x.y\r\nSubject: s\r\n\r\nbody',
    )
    expect(headerRecipients(mail)).toEqual([
      'reply+1@in.example.com',
      'b@in.example.com',
      'c@x.y',
      'd@x.y',
      'e@x.y',
    ])
  })

  const auto: [string, string, string | null | undefined, string | null][] = [
    ['a person', 'Subject: Re: hi', 'ann@x.y', null],
    ['Auto-Submitted: no', 'Auto-Submitted: no', 'ann@x.y', null],
    [
      'Auto-Submitted: auto-replied',
      'Auto-Submitted: auto-replied',
      'ann@x.y',
      'auto-reply (Auto-Submitted: auto-replied)',
    ],
    ['X-Autoreply', 'X-Autoreply: yes', 'ann@x.y', 'auto-reply (x-autoreply)'],
    ['Precedence: bulk', 'Precedence: bulk', 'ann@x.y', 'auto-reply (Precedence: bulk)'],
    ['Precedence: auto_reply', 'Precedence: auto_reply', undefined, 'auto-reply (Precedence: auto_reply)'],
    ['the null envelope sender', 'Subject: Away', '', 'auto-reply (null envelope sender)'],
  ]
  for (const [name, header, envelopeFrom, expected] of auto)
    test(`auto-reply detection: ${name}`, async () => {
      const mail = await parseMail(`From: ann@x.y\r\n${header}\r\n\r\nbody`)
      expect(autoReplyReason(mail, envelopeFrom)).toBe(expected)
    })

  test('a report is recognised by its report-type, or by its parts when the type is missing', async () => {
    const part = (type: string) =>
      `MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=B\r\n\r\n--B\r\nContent-Type: ${type}\r\n\r\nAction: failed\r\n\r\n--B--\r\n`
    expect(reportKindOf(await parseMail(part('message/delivery-status')))).toBe('delivery-status')
    expect(reportKindOf(await parseMail(part('message/feedback-report')))).toBe('feedback-report')
    expect(reportKindOf(await parseMail(part('text/plain')))).toBeNull()
  })
})
