import type { AppContext } from '../../context'
import type { MessageRow } from '../../db/schema'
import { decodeVerpToken } from '../../lib/tracking-token'
import { findMessage } from '../messages/activity'
import { trackingKeyOf } from '../tracking/resolve'

// Inbound mail finds its way back to an outbox message in two ways: a signed VERP address
// (bounce+<token>@, reply+<token>@, unsubscribe+<token>@ the inbound domain), which proves which
// message and client it is about, or the Message-ID Herald gave the message (<outbox-id@domain>),
// which mail clients and MTAs quote in In-Reply-To, References and returned headers.

export type VerpPurpose = 'bounce' | 'reply' | 'unsubscribe'

export interface VerpAddress {
  purpose: VerpPurpose
  token: string
  address: string
}

const VERP_RE = /^(bounce|reply|unsubscribe)\+([0-9a-f]{64})@([^@\s]+)$/i

/** The first of `addresses` that is one of our VERP addresses (on the inbound domain, when one is set). */
export function findVerp(addresses: readonly string[], domain: string | null): VerpAddress | null {
  for (const raw of addresses) {
    const address = raw.trim().replace(/^<|>$/g, '')
    const m = VERP_RE.exec(address)
    if (!m) continue
    if (domain !== null && m[3]!.toLowerCase() !== domain) continue
    return { purpose: m[1]!.toLowerCase() as VerpPurpose, token: m[2]!.toLowerCase(), address }
  }
  return null
}

export type Resolved = { ok: true; message: MessageRow } | { ok: false; reason: string }

/** The message a VERP token names, when its signature is right for that message's client and purpose. */
export async function resolveVerp(app: AppContext, verp: VerpAddress): Promise<Resolved> {
  const decoded = decodeVerpToken(verp.token)
  const message = decoded ? await findMessage(app, decoded.messageId) : undefined
  // One answer for "no such message" and "bad signature": a prober learns nothing either way.
  if (!decoded || !message || !decoded.verify(trackingKeyOf(app), message.clientId, verp.purpose))
    return { ok: false, reason: `unknown or forged token in ${verp.purpose}+ address` }
  return { ok: true, message }
}

const OUR_ID = /<([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@[^<>\s]+>/gi

/** The first outbox message named by a Message-ID in `texts` (In-Reply-To, References, returned headers). */
export async function messageByRfcId(
  app: AppContext,
  texts: readonly (string | undefined)[],
): Promise<MessageRow | null> {
  for (const text of texts) {
    if (!text) continue
    for (const m of text.matchAll(OUR_ID)) {
      const found = await findMessage(app, m[1]!.toLowerCase())
      if (found && found.channel === 'email') return found
    }
  }
  return null
}
