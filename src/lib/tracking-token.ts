import { createHmac, timingSafeEqual } from 'node:crypto'

// Signed, unguessable tokens for tracking links, unsubscribe links and VERP addresses. A token
// names an outbox message (and, for clicks, the URL it leads to); its signature covers the
// message's client as well, so a token is only valid for the tenant whose message it names and
// a click can only lead to a URL Herald itself put into that message.
//
// A template preview renders `unsubscribe_url` as a token of its own kind (`preview_unsubscribe`):
// it names the template, not a message, and is signed under a scope no client id can take, so it
// can neither be read as a real unsubscribe token nor made from one; its page changes nothing.
//
// A `preferences` token names a contact rather than a message (the preference centre is the
// person's, whichever message linked to it) and is signed for the contact's client; its preview
// twin `preview_preferences` names a template, like `preview_unsubscribe`.

export type LinkKind =
  | 'open'
  | 'click'
  | 'unsubscribe'
  | 'preview_unsubscribe'
  | 'preferences'
  | 'preview_preferences'
export type PreviewKind = 'preview_unsubscribe' | 'preview_preferences'
const KIND_BYTE: Record<LinkKind, number> = {
  open: 1,
  click: 2,
  unsubscribe: 3,
  preview_unsubscribe: 4,
  preferences: 5,
  preview_preferences: 6,
}
/** What a preview token is signed for, in place of a client id (client ids are UUIDs). */
export const PREVIEW_SCOPE = 'template preview'
const BYTE_KIND = new Map(Object.entries(KIND_BYTE).map(([k, v]) => [v, k as LinkKind]))
const SIG_BYTES = 16

/** The key tokens are signed with, derived from the instance secret. */
export function trackingKey(secret: Uint8Array): Buffer {
  return createHmac('sha256', secret).update('herald tracking tokens v1').digest()
}

export const uuidBytes = (uuid: string) => Buffer.from(uuid.replaceAll('-', ''), 'hex')
export const uuidOf = (b: Buffer) => {
  const h = b.toString('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}
const sign = (key: Buffer, clientId: string, payload: Buffer) =>
  createHmac('sha256', key).update(clientId).update('|').update(payload).digest().subarray(0, SIG_BYTES)

export function encodeLinkToken(
  key: Buffer,
  clientId: string,
  kind: LinkKind,
  messageId: string,
  url?: string,
): string {
  const payload = Buffer.concat([Buffer.of(KIND_BYTE[kind]), uuidBytes(messageId), Buffer.from(url ?? '')])
  return `${payload.toString('base64url')}.${sign(key, clientId, payload).toString('base64url')}`
}

/** The `unsubscribe_url` (or `preferences_url`) of a template preview: names the template, signed for PREVIEW_SCOPE. */
export const encodePreviewToken = (
  key: Buffer,
  templateId: string,
  kind: PreviewKind = 'preview_unsubscribe',
): string => encodeLinkToken(key, PREVIEW_SCOPE, kind, templateId)

/** The preference centre of a contact, below the public URL: `/p/<token>`. */
export const preferencesPath = (key: Buffer, clientId: string, contactId: string): string =>
  `/p/${encodeLinkToken(key, clientId, 'preferences', contactId)}`

export interface DecodedLink {
  kind: LinkKind
  /** The message a token names (a preview's: the template; `preferences`: the contact). */
  messageId: string
  url: string | null
  /** True when the signature is right for the message's client. */
  verify(key: Buffer, clientId: string): boolean
}

/** Reads a token's claims; they mean nothing until `verify` with the named message's client. */
export function decodeLinkToken(token: string): DecodedLink | null {
  const [p, s, extra] = token.split('.')
  if (!p || !s || extra !== undefined || !/^[\w-]+$/.test(p) || !/^[\w-]+$/.test(s)) return null
  const payload = Buffer.from(p, 'base64url')
  const sig = Buffer.from(s, 'base64url')
  const kind = BYTE_KIND.get(payload[0] ?? 0)
  if (!kind || payload.length < 17 || sig.length !== SIG_BYTES) return null
  const url = payload.subarray(17).toString()
  return {
    kind,
    messageId: uuidOf(payload.subarray(1, 17)),
    url: kind === 'click' ? url : null,
    verify: (key, clientId) => timingSafeEqual(sign(key, clientId, payload), sig),
  }
}

/** VERP local-part token: lower-case hex so it survives MTAs that fold case. */
export function encodeVerpToken(key: Buffer, clientId: string, purpose: string, messageId: string): string {
  const id = uuidBytes(messageId)
  return id.toString('hex') + sign(key, clientId, Buffer.concat([Buffer.from(purpose), id])).toString('hex')
}

export function decodeVerpToken(token: string): {
  messageId: string
  verify(key: Buffer, clientId: string, purpose: string): boolean
} | null {
  const t = token.toLowerCase()
  if (!/^[0-9a-f]{64}$/.test(t)) return null
  const id = Buffer.from(t.slice(0, 32), 'hex')
  const sig = Buffer.from(t.slice(32), 'hex')
  return {
    messageId: uuidOf(id),
    verify: (key, clientId, purpose) =>
      timingSafeEqual(sign(key, clientId, Buffer.concat([Buffer.from(purpose), id])), sig),
  }
}
