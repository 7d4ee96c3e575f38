import { describe, expect, test } from 'bun:test'
import { simpleParser } from 'mailparser'
import MailComposer from 'nodemailer/lib/mail-composer'
import { composeEmail, mailOptions } from '../../src/channels/mime'
import type { OutgoingEmail } from '../../src/channels/types'

// composeEmail() writes the message itself (for speed) from nodemailer's encoders; read back by
// mailparser it must say exactly what nodemailer's own MailComposer says for the same input.

const base: OutgoingEmail = {
  channel: 'email',
  id: '0193a1b2-c3d4-7000-8000-000000000001',
  clientId: 'c',
  messageId: '<0193a1b2-c3d4-7000-8000-000000000001@news.example>',
  from: { email: 'offers@news.example', name: 'Acme News' },
  replyTo: 'support@news.example',
  to: 'ann@customer.example',
  envelopeFrom: 'bounce@news.example',
  subject: 'Spring offers',
  html: '<p>Hello</p>',
  text: 'Hello',
  headers: {
    'List-Unsubscribe': '<https://h.example/u/t>',
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  },
  dkim: null,
}

const cases: [string, Partial<OutgoingEmail>][] = [
  ['plain ASCII', {}],
  [
    'non-ASCII display name with comma and quotes, IDN recipient, long non-ASCII subject',
    {
      from: { email: 'offers@news.example', name: 'Zoë "The Café" Smith, Ltd.' },
      to: 'jürgen@bücher.example',
      subject: `Ünïcode ${'offers and more offers — '.repeat(12)}`,
    },
  ],
  ['CR/LF in the subject cannot add a header', { subject: 'Hi\r\nBcc: evil@attacker.example' }],
  [
    'CJK text (base64), long-line HTML (quoted-printable), bare LF and trailing spaces',
    {
      text: '你好，世界。春季优惠来了！\n这是第二行。  \n\n\n',
      html: `<div>${'<span style="color: red">word</span> '.repeat(40)}</div>\n<p>tail   </p>`,
    },
  ],
  ['text only', { html: null }],
  ['HTML only', { text: null }],
  ['no body at all', { html: null, text: null }],
  ['no name, no Reply-To', { from: { email: 'offers@news.example', name: null }, replyTo: null }],
  [
    'custom headers: names as written, values encoded, ours not overridden',
    { headers: { 'feedback-id': 'c1:camp:herald', 'X-Note': 'naïve', Subject: 'not this one' } },
  ],
]

describe('composeEmail', () => {
  test.each(cases)('%s: mailparser reads what it reads from MailComposer', async (_name, over) => {
    const m = { ...base, ...over }
    const ours = composeEmail(m)
    const theirs = await new MailComposer(mailOptions(m)).compile().build()
    const [a, b] = await Promise.all([simpleParser(ours), simpleParser(theirs)])
    expect(a.from).toEqual(b.from!)
    expect(a.to).toEqual(b.to!)
    expect(a.replyTo).toEqual(b.replyTo!)
    expect(a.subject).toBe(b.subject!)
    expect(a.messageId).toBe(m.messageId)
    expect(a.html).toBe(b.html!)
    expect(a.text).toBe(b.text!)
    const custom = (mail: typeof a) =>
      mail.headerLines.filter((h) => /^(list-|feedback-id|x-)/.test(h.key)).map((h) => h.line.toLowerCase())
    expect(custom(a)).toEqual(custom(b))
    expect(a.headers.get('bcc')).toBeUndefined()
    expect(a.subject).not.toBe('not this one')

    // on-the-wire form: CRLF only, short lines, ends with CRLF
    const text = ours.toString('utf8')
    expect(text).not.toMatch(/\r(?!\n)|(?<!\r)\n/)
    expect(text.endsWith('\r\n')).toBe(true)
    for (const line of text.split('\r\n')) expect(line.length).toBeLessThanOrEqual(998)
    expect(text.split('\r\n\r\n')[0]).not.toMatch(/[^\t\r\n\x20-\x7e\u00a0-\uffff]/) // no control characters
  })
})
