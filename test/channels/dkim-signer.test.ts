import { describe, expect, test } from 'bun:test'
import { dkimSign, relaxedBody, relaxedHeader } from '../../src/channels/dkim-signer'
import { composeEmail } from '../../src/channels/mime'
import type { OutgoingEmail } from '../../src/channels/types'
import { signMessage } from '../../src/services/domains/dkim'
import { publishedDkimKey } from '../helpers/dkim'

// The smtp provider's own DKIM signer (WebCrypto, off the main thread): mailauth must pass what
// it signs, and its body hash must equal the one nodemailer's signer computes for the same bytes.

const { dkim, verify } = await publishedDkimKey('news.example', 's1')

const email = (over: Partial<OutgoingEmail>): OutgoingEmail => ({
  channel: 'email',
  id: 'x',
  clientId: 'c',
  messageId: '<m1@news.example>',
  from: { email: 'offers@news.example', name: 'Acme News' },
  replyTo: null,
  to: 'ann@customer.example',
  envelopeFrom: 'bounce@news.example',
  subject: 'Offers',
  html: null,
  text: 'Hello',
  headers: {
    'List-Unsubscribe': '<https://h.example/u/t>',
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  },
  dkim,
  ...over,
})

const tag = (raw: Buffer, name: string) =>
  new RegExp(`\\b${name}=([^;]+);`).exec(raw.toString().replace(/\r\n\s+/g, ' '))?.[1]?.replace(/\s+/g, '')

describe('dkimSign', () => {
  test('relaxed canonicalization as RFC 6376 §3.4 spells it', () => {
    expect(relaxedBody(' C \r\nD \t E\r\n\r\n\r\n')).toBe(' C\r\nD E\r\n')
    expect(relaxedBody('')).toBe('')
    expect(relaxedBody('\r\n\r\n')).toBe('')
    expect(relaxedBody('no final line break')).toBe('no final line break\r\n')
    expect(relaxedHeader('SubJect :  A \r\n\t long   subject ')).toBe('subject:A long subject')
  })

  test.each([
    [
      '7bit text with trailing spaces, tabs and empty lines at the end',
      { text: 'Hi  there \t\nline 2\t\n\n\n\n' },
    ],
    ['multipart with quoted-printable HTML', { html: `<p>${'Größe '.repeat(40)}</p>`, text: 'Größe' }],
    ['non-ASCII name and subject', { subject: 'Ünïcode', from: { email: 'o@news.example', name: 'Zoë' } }],
  ])('%s: mailauth passes, and the body hash is nodemailer’s', async (_name, over) => {
    const raw = composeEmail(email(over))
    const signed = await dkimSign(raw, dkim)
    const result = (await verify(signed)).results[0]!
    expect(result.status.result).toBe('pass')
    expect(result.signingDomain).toBe('news.example')
    const theirs = await signMessage(raw, dkim)
    expect(tag(signed, 'bh')).toBe(tag(theirs, 'bh')!)
  })

  test('a header changed after signing fails verification', async () => {
    const signed = (await dkimSign(composeEmail(email({})), dkim)).toString()
    const tampered = Buffer.from(signed.replace('https://h.example/u/t', 'https://evil.example/u/t'))
    expect((await verify(tampered)).results[0]?.status.result).toBe('fail')
  })

  test('signs concurrently and stays correct (the thread pool path)', async () => {
    const raws = Array.from({ length: 40 }, (_, i) => composeEmail(email({ subject: `Offer ${i}` })))
    const signed = await Promise.all(raws.map((r) => dkimSign(r, dkim)))
    const results = await Promise.all(signed.map(verify))
    expect(results.map((r) => r.results[0]?.status.result)).toEqual(raws.map(() => 'pass'))
  })
})
