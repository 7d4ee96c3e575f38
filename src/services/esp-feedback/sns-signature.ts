import { createVerify, X509Certificate } from 'node:crypto'
import { BodyTooLarge, readCappedBody } from '../../lib/capped-body'
import { isObject, str } from './types'

// Amazon SNS signs every message it posts (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA)
// over a canonical string of some of its fields, with the key of the certificate at
// SigningCertURL. The URL comes in the message itself, so only Amazon's own SNS hosts (and the
// hosts an operator lists in HERALD_SNS_CERT_HOSTS, for tests) may be named; certificates are
// fetched once and kept.

export interface SnsMessage {
  Type: string
  MessageId: string
  TopicArn: string
  Message: string
  Timestamp: string
  SignatureVersion: string
  Signature: string
  SigningCertURL: string
  Subject?: string
  SubscribeURL?: string
  Token?: string
}

const NOTIFICATION_KEYS = ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'] as const
const SUBSCRIPTION_KEYS = [
  'Message',
  'MessageId',
  'SubscribeURL',
  'Timestamp',
  'Token',
  'TopicArn',
  'Type',
] as const

/** The body as an SNS message when it has the fields every SNS message has, else null. */
export function snsMessageOf(body: unknown): SnsMessage | null {
  if (!isObject(body)) return null
  for (const k of ['Type', 'MessageId', 'TopicArn', 'Message', 'Timestamp', 'Signature', 'SigningCertURL'])
    if (str(body[k]) === null) return null
  return body as unknown as SnsMessage
}

/** "Key\nValue\n" for each signed field in order; an absent Subject is left out. */
export function canonicalString(m: SnsMessage): string {
  const keys = m.Type === 'Notification' ? NOTIFICATION_KEYS : SUBSCRIPTION_KEYS
  let out = ''
  for (const k of keys) {
    const v = (m as unknown as Record<string, unknown>)[k]
    if (typeof v === 'string') out += `${k}\n${v}\n`
  }
  return out
}

const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/

/** Why a SigningCertURL may not be fetched, or null when it may. */
export function certUrlProblem(raw: string, extraHosts: readonly string[]): string | null {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'SigningCertURL is not a URL'
  }
  if (url.protocol !== 'https:') return 'SigningCertURL must use https'
  if (!url.pathname.endsWith('.pem')) return 'SigningCertURL must name a .pem file'
  if (url.port === '' && SNS_HOST.test(url.hostname.toLowerCase())) return null
  if (extraHosts.includes(url.host.toLowerCase())) return null
  return `SigningCertURL host ${url.host} is not an Amazon SNS host`
}

const CERT_LIMIT = 16 * 1024
const FETCH_TIMEOUT_MS = 5_000
/** SNS uses a handful of certificates; a cache that grows past this is cleared. */
const CACHE_MAX = 64

export interface SnsVerifierOptions {
  extraHosts: readonly string[]
  /** TLS options for the certificate fetch (a test's own CA). */
  tls?: { ca?: string | string[] }
  now?: () => number
}

export type SnsVerifier = (m: SnsMessage) => Promise<boolean>

export function createSnsVerifier(options: SnsVerifierOptions): SnsVerifier {
  const certs = new Map<string, Promise<X509Certificate>>()
  const now = options.now ?? Date.now

  const certificate = (url: string) => {
    let found = certs.get(url)
    if (!found) {
      if (certs.size >= CACHE_MAX) certs.clear()
      found = fetchCertificate(url, options.tls)
      // A failed fetch is not remembered: the next message tries again.
      found.catch(() => certs.delete(url))
      certs.set(url, found)
    }
    return found
  }

  return async (m) => {
    const algorithm =
      m.SignatureVersion === '1' ? 'RSA-SHA1' : m.SignatureVersion === '2' ? 'RSA-SHA256' : null
    if (!algorithm || certUrlProblem(m.SigningCertURL, options.extraHosts)) return false
    let cert: X509Certificate
    try {
      cert = await certificate(m.SigningCertURL)
    } catch {
      return false
    }
    const t = now()
    if (Date.parse(cert.validFrom) > t || Date.parse(cert.validTo) < t) return false
    return createVerify(algorithm)
      .update(canonicalString(m), 'utf8')
      .verify(cert.publicKey, m.Signature, 'base64')
  }
}

async function fetchCertificate(url: string, tls: SnsVerifierOptions['tls']): Promise<X509Certificate> {
  const res = await fetch(url, {
    redirect: 'manual',
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    ...(tls ? { tls } : {}),
  })
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => {})
    throw new Error(`the certificate URL answered ${res.status}`)
  }
  try {
    return new X509Certificate(Buffer.from(await readCappedBody(res, CERT_LIMIT)))
  } catch (err) {
    if (err instanceof BodyTooLarge) throw new Error('the certificate is larger than 16 KiB')
    throw err
  }
}
