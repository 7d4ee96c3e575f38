import type { AppContext } from '../../context'
import type { MessageRow } from '../../db/schema'
import { isRedirectable } from '../../lib/html-links'
import {
  decodeLinkToken,
  type LinkKind,
  PREVIEW_SCOPE,
  type PreviewKind,
  trackingKey,
} from '../../lib/tracking-token'
import { findMessage } from '../messages/activity'

const keys = new WeakMap<Uint8Array, Buffer>()
/** The instance's tracking-token key, derived once per secret. */
export const trackingKeyOf = (app: AppContext): Buffer => {
  let k = keys.get(app.secretKey)
  if (!k) {
    k = trackingKey(app.secretKey)
    keys.set(app.secretKey, k)
  }
  return k
}

/**
 * The message a tracking or unsubscribe token names, when its signature is valid for that
 * message's client and it is of the expected kind; null otherwise (the route answers 404).
 */
export async function resolveLinkToken(
  app: AppContext,
  token: string,
  kind: Exclude<LinkKind, PreviewKind | 'preferences'>,
): Promise<{ message: MessageRow; url: string | null } | null> {
  const decoded = decodeLinkToken(token)
  if (!decoded || decoded.kind !== kind) return null
  const message = await findMessage(app, decoded.messageId)
  if (!message || !decoded.verify(trackingKeyOf(app), message.clientId)) return null
  if (kind === 'click' && !isRedirectable(decoded.url ?? '')) return null
  return { message, url: decoded.url }
}

/**
 * The template a preview's unsubscribe token names, when it is a validly signed preview token;
 * null otherwise. Needs no lookup: the token changes nothing, so a deleted template's link still
 * opens the preview page.
 */
export function resolvePreviewToken(
  app: AppContext,
  token: string,
  kind: PreviewKind = 'preview_unsubscribe',
): { templateId: string } | null {
  const decoded = decodeLinkToken(token)
  if (!decoded || decoded.kind !== kind) return null
  if (!decoded.verify(trackingKeyOf(app), PREVIEW_SCOPE)) return null
  return { templateId: decoded.messageId }
}
