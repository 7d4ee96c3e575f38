import { createHash, type KeyObject } from 'node:crypto'
import { domainToASCII } from 'node:url'
import type { DkimSigning } from './types'

// DKIM (RFC 6376, rsa-sha256, relaxed/relaxed) for the smtp provider. The RSA-2048 signature
// is ~0.5-0.7 ms of CPU, more than everything else a send costs; Bun runs WebCrypto's sign() on
// its thread pool, so the send thread calling this (src/queue/send-thread.ts) composes the next
// message and keeps its SMTP connections busy meanwhile. Canonicalization and hashing (~30 µs)
// stay on the calling thread. It signs the same fields as
// nodemailer's signer; tests check its body hash against nodemailer's and verify with mailauth.

const ALGORITHM = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const

// dkimForSender() caches one KeyObject per domain key, so this imports each key once.
const cryptoKeys = new WeakMap<KeyObject, Promise<CryptoKey>>()

function cryptoKeyOf(key: KeyObject): Promise<CryptoKey> {
  let imported = cryptoKeys.get(key)
  if (!imported) {
    const der = key.export({ type: 'pkcs8', format: 'der' })
    imported = crypto.subtle.importKey('pkcs8', der, ALGORITHM, false, ['sign'])
    cryptoKeys.set(key, imported)
  }
  return imported
}

/** Relaxed body canonicalization (RFC 6376 §3.4.4) of a CRLF body. */
export function relaxedBody(body: string): string {
  let canonical = body
  // Composed bodies rarely hold a tab, a double space or a space before a line break (QP and
  // base64 encode them); three indexOf scans are ~10x cheaper than the regexes below.
  if (body.includes('\t') || body.includes('  ') || body.includes(' \r\n') || body.endsWith(' '))
    canonical = body.replace(/[ \t]+(?=\r\n|$)/g, '').replace(/[ \t]+/g, ' ')
  let end = canonical.length // drop the empty lines at the end, keep one CRLF
  while (end >= 2 && canonical.charCodeAt(end - 2) === 13 && canonical.charCodeAt(end - 1) === 10) end -= 2
  return end === 0 ? '' : `${canonical.slice(0, end)}\r\n`
}

/** Relaxed header canonicalization (§3.4.2) of one field, folding included; no CRLF. */
export function relaxedHeader(field: string): string {
  const colon = field.indexOf(':')
  const value = field
    .slice(colon + 1)
    .replace(/\r\n(?=[ \t])/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim()
  return `${field.slice(0, colon).trim().toLowerCase()}:${value}`
}

/** Header fields of a message head, each with its folded continuation lines. */
function splitFields(head: string): string[] {
  const fields: string[] = []
  for (const line of head.split('\r\n')) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && fields.length > 0)
      fields[fields.length - 1] += `\r\n${line}`
    else if (line !== '') fields.push(line)
  }
  return fields
}

// Header lines stay under ~76 characters. Folding white space may stand between the names of
// h= (after a colon, never inside a name) and anywhere in the base64 of b= (§3.5).
const foldBase64 = (b64: string) => b64.replace(/(.{72})(?=.)/g, '$1\r\n ')
function foldNames(names: string[]): string {
  const lines = ['']
  for (const [i, name] of names.entries()) {
    const piece = i < names.length - 1 ? `${name}:` : name
    if (lines[lines.length - 1]!.length + piece.length > 70) lines.push('')
    lines[lines.length - 1] += piece
  }
  return lines.join('\r\n ')
}

// The same few values come with every message of a campaign; small caches spare the parsing.
const memo = <T>(compute: (key: string) => T) => {
  const cache = new Map<string, T>()
  return (key: string): T => {
    let value = cache.get(key)
    if (value === undefined) {
      if (cache.size >= 1000) cache.clear()
      value = compute(key)
      cache.set(key, value)
    }
    return value
  }
}

/** `From:To:…` → the distinct lower-case names, in order. */
const fieldNames = memo((list) => [
  ...new Set(
    list
      .toLowerCase()
      .split(':')
      .map((n) => n.trim()),
  ),
])

// d= in its A-label form; a tag value keeps printable ASCII but ';' and '=' (like nodemailer).
const asciiDomain = memo((domain) => domainToASCII(domain) || domain)
const tagValue = (value: string, domain: boolean) =>
  (domain ? asciiDomain(value) : value).replace(/[^\x21-\x3a\x3c\x3e-\x7e]/g, '')

/**
 * Prepends a DKIM-Signature to `raw` (CRLF line ends, as composeEmail() makes it), signing
 * the fields of `dkim.headerFieldNames` that the message has (the last instance of each, as
 * §5.4.2 asks), like nodemailer's signer does.
 */
export async function dkimSign(raw: Buffer, dkim: DkimSigning): Promise<Buffer> {
  const text = raw.toString('latin1')
  const split = text.indexOf('\r\n\r\n')
  const head = split === -1 ? text : text.slice(0, split)
  const body = split === -1 ? '' : text.slice(split + 4)

  const byName = new Map<string, string>()
  for (const field of splitFields(head))
    byName.set(field.slice(0, field.indexOf(':')).trim().toLowerCase(), field)
  const names: string[] = []
  let signedHeaders = ''
  for (const name of fieldNames(dkim.headerFieldNames)) {
    const field = byName.get(name)
    if (field === undefined) continue
    names.push(name)
    signedHeaders += `${relaxedHeader(field)}\r\n`
  }

  const bodyHash = createHash('sha256').update(relaxedBody(body), 'latin1').digest('base64')
  const header =
    `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; q=dns/txt;\r\n d=${tagValue(dkim.domainName, true)};` +
    ` s=${tagValue(dkim.keySelector, false)};\r\n h=${foldNames(names)};\r\n bh=${bodyHash};\r\n b=`
  signedHeaders += relaxedHeader(header)

  const key = await cryptoKeyOf(dkim.privateKey)
  const signature = await crypto.subtle.sign(ALGORITHM, key, Buffer.from(signedHeaders, 'latin1'))
  const b = foldBase64(Buffer.from(signature).toString('base64'))
  return Buffer.concat([Buffer.from(`${header}${b}\r\n`, 'latin1'), raw])
}
