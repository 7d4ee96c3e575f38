import * as base64 from 'nodemailer/lib/base64'
import { foldLines, hasLongerLines, isPlainText } from 'nodemailer/lib/mime-funcs'
import MimeNode from 'nodemailer/lib/mime-node'
import * as qp from 'nodemailer/lib/qp'
import type { OutgoingEmail } from './types'

// Writes the RFC 5322 message of an outgoing email. Every header value is encoded by
// nodemailer (MimeNode#encodeHeaderValue: addresses, punycode, encoded words, CR/LF removal)
// and folded by it, and bodies use its quoted-printable / base64 encoders with MimeNode's
// choice between them. Only the layout (header order, the multipart/alternative structure) is
// ours: MailComposer + MimeNode#build() cost ~0.4 ms a message (header-key normalisation on
// every lookup, a Transform stream per part, setImmediate hops), this ~0.1 ms, and the smtp
// provider's throughput depends on it. Tests compare what mailparser reads from both.

const encoder = new MimeNode()

// Set by this writer; a same-named entry of `headers` would duplicate or contradict them.
const OWN = new Set([
  'from',
  'to',
  'reply-to',
  'subject',
  'message-id',
  'date',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'dkim-signature',
])

const field = (name: string, value: Parameters<MimeNode['encodeHeaderValue']>[1]) =>
  foldLines(`${name}: ${encoder.encodeHeaderValue(name, value)}`, 76)

/** One text part's header lines and encoded body, the encoding chosen as MimeNode does. */
function textPart(type: 'text/plain' | 'text/html', content: string): { head: string; body: string } {
  let encoding = 'base64'
  let body: string
  if (isPlainText(content) && !hasLongerLines(content, 76)) {
    encoding = '7bit'
    body = content
  } else if (mostlyLatin(content)) {
    encoding = 'quoted-printable'
    body = qp.wrap(qp.encode(content), 76)
  } else body = base64.wrap(base64.encode(content), 76)
  return { head: `Content-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: ${encoding}`, body }
}

// MimeNode#_getTextEncoding: quoted-printable when latin letters outnumber other characters.
function mostlyLatin(value: string): boolean {
  let other = 0
  let latin = 0
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c <= 0x08 || c === 0x0b || c === 0x0c || (c >= 0x0e && c <= 0x1f) || c >= 0x80) other++
    else if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) latin++
  }
  return other < latin
}

/** The same message as MailComposer options (the benchmark's baseline; tests compare the two). */
export function mailOptions(m: OutgoingEmail) {
  return {
    from: { name: m.from.name ?? '', address: m.from.email },
    replyTo: m.replyTo ?? undefined,
    to: m.to,
    subject: m.subject,
    messageId: m.messageId,
    html: m.html ?? undefined,
    text: m.text ?? undefined,
    headers: m.headers,
  }
}

/**
 * The whole message as it goes on the wire, UTF-8 (bodies are ASCII: 7bit only when plain
 * ASCII, else encoded; a header may keep an internationalised address as nodemailer does),
 * every line break CRLF, ending with CRLF:
 * nodemailer's SMTP data stream would turn bare CR and LF into CRLF, and a DKIM signature must
 * be computed over the bytes sent.
 */
export function composeEmail(m: OutgoingEmail, date = new Date()): Buffer {
  const lines: string[] = []
  for (const [name, value] of Object.entries(m.headers)) {
    const clean = name.replace(/[^\x21-\x39\x3b-\x7e]/g, '') // a field name is printable ASCII without ':'
    if (clean && !OWN.has(clean.toLowerCase())) lines.push(field(clean, value))
  }
  lines.push(field('From', { name: m.from.name ?? '', address: m.from.email }))
  lines.push(field('To', m.to))
  if (m.replyTo) lines.push(field('Reply-To', m.replyTo))
  lines.push(field('Subject', m.subject))
  lines.push(field('Message-ID', m.messageId))
  lines.push(`Date: ${date.toUTCString().replace(/GMT/, '+0000')}`)
  lines.push('MIME-Version: 1.0')

  const parts: { head: string; body: string }[] = []
  if (m.text) parts.push(textPart('text/plain', m.text))
  if (m.html) parts.push(textPart('text/html', m.html))
  let message: string
  if (parts.length < 2) {
    const only = parts[0] ?? textPart('text/plain', '')
    message = `${lines.join('\r\n')}\r\n${only.head}\r\n\r\n${only.body}`
    if (!/[\r\n]$/.test(message)) message += '\r\n' // as MimeNode's LastNewline does
  } else {
    const boundary = `--_Herald-${crypto.randomUUID()}`
    const body = parts.map((p) => `--${boundary}\r\n${p.head}\r\n\r\n${p.body}\r\n`).join('')
    lines.push(`Content-Type: multipart/alternative;\r\n boundary="${boundary}"`)
    message = `${lines.join('\r\n')}\r\n\r\n${body}--${boundary}--\r\n`
  }
  if (/\r(?!\n)|(?<!\r)\n/.test(message)) message = message.replace(/\r\n|\r|\n/g, '\r\n')
  return Buffer.from(message, 'utf8')
}
