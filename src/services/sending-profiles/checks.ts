import { createPublicKey } from 'node:crypto'
import { isIP } from 'node:net'
import type { AppContext } from '../../context'
import type { FieldError } from '../../lib/validate'
import { addressProblem, hostResolver, normaliseHost, publicAddresses } from '../../webhooks/ssrf'
import { type SendingProfileInput, TEXT_CHANNELS } from './inputs'

// The checks of a sending profile that need no database: URL shapes, sender numbers, the
// SendGrid key; and, for a tenant's own profile, where its SMTP relay and Twilio endpoint are
// (a public address only, as for webhooks: a tenant must not make the server connect inward).

const FROM = /^(\+[1-9]\d{6,14}|MG[0-9a-f]{32}|whatsapp:\+[1-9]\d{6,14})$/i

/** The SMTP URL's host and port when it is one we can use, else why not. */
function smtpUrlProblem(raw: string): string | null {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'must be a URL like smtp://user:password@smtp.example.com:587'
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') return 'must use smtp:// or smtps://'
  if (!url.hostname) return 'must name a host'
  return null
}

function httpUrlProblem(raw: string): string | null {
  try {
    const url = new URL(raw)
    return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'must use https or http'
  } catch {
    return 'must be an absolute URL'
  }
}

/** A base64 DER SPKI of a P-256 key (what SendGrid shows), or why not. */
function p256KeyProblem(base64: string): string | null {
  try {
    const key = createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' })
    return key.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? null : 'must be a P-256 (prime256v1) key'
  } catch {
    return 'must be the base64 DER public key SendGrid shows (an ECDSA P-256 key)'
  }
}

/** Shape checks of the body (every failing member). */
export function shapeErrors(input: SendingProfileInput): FieldError[] {
  const errors: FieldError[] = []
  if (input.email?.smtp_url !== undefined) {
    const why = smtpUrlProblem(input.email.smtp_url)
    if (why) errors.push({ field: 'email.smtp_url', message: why })
  }
  for (const channel of TEXT_CHANNELS) {
    const c = input[channel]
    if (c?.twilio_base_url !== undefined) {
      const why = httpUrlProblem(c.twilio_base_url)
      if (why) errors.push({ field: `${channel}.twilio_base_url`, message: why })
    }
    if (c?.from !== undefined && !FROM.test(c.from))
      errors.push({
        field: `${channel}.from`,
        message: 'must be an E.164 number (+14155550100), whatsapp:+… or a Messaging Service SID (MG…)',
      })
  }
  const key = input.feedback?.sendgrid?.public_key
  if (key !== undefined) {
    const why = p256KeyProblem(key)
    if (why) errors.push({ field: 'feedback.sendgrid.public_key', message: why })
  }
  return errors
}

/**
 * Where a tenant's profile would make the server connect: each host must resolve to public
 * addresses only (unless the instance allows private ones). Platform-wide callers may name any
 * host (an agency's own relay on 127.0.0.1). Returns the failing members.
 */
export async function addressErrors(app: AppContext, input: SendingProfileInput): Promise<FieldError[]> {
  if (app.config.webhookAllowPrivate) return []
  const targets: { field: string; host: string }[] = []
  const hostOf = (raw: string) => {
    try {
      return normaliseHost(new URL(raw).hostname)
    } catch {
      return null
    }
  }
  const smtp = input.email?.smtp_url && hostOf(input.email.smtp_url)
  if (smtp) targets.push({ field: 'email.smtp_url', host: smtp })
  for (const channel of TEXT_CHANNELS) {
    const base = input[channel]?.twilio_base_url
    const host = base && hostOf(base)
    if (host) targets.push({ field: `${channel}.twilio_base_url`, host })
  }
  const resolve = hostResolver(app.config.dnsServers)
  const errors: FieldError[] = []
  for (const { field, host } of targets) {
    if (isIP(host)) {
      const why = addressProblem(host)
      if (why) errors.push({ field, message: `must be a public address (${host} is ${why})` })
      continue
    }
    const found = await publicAddresses(host, resolve)
    if ('problem' in found) errors.push({ field, message: found.problem })
  }
  return errors
}
