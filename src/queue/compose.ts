import type { Outgoing } from '../channels/types'
import type { Config } from '../config'
import type { ContactRow, MessageRow } from '../db/schema'
import { trackLinks } from '../lib/html-links'
import { encodeLinkToken, encodeVerpToken, preferencesPath } from '../lib/tracking-token'
import type { RenderedMessage, RenderVariables } from '../services/templates/render'
import type { SendPlan } from './plan'

// One recipient's message: the template rendered with their data, every link wrapped in a
// signed click token, an open pixel, and (bulk mail) the List-Unsubscribe headers of RFC 2369 / 8058.
// It needs no database: the send threads (send-thread.ts) compose with it too. Neither renders:
// the render pool does, and its result is composed here.

/** The settings composition reads. */
export type ComposeSettings = Pick<Config, 'publicUrl' | 'inboundDomain'>
/** What composition reads of a plan (a send thread rebuilds these from a PlanSpec). */
export type ComposePlan = Pick<
  SendPlan,
  'channel' | 'variables' | 'idDomain' | 'bulk' | 'sender' | 'dkim' | 'headers'
>

export interface Composed {
  /** The contact's email address (event data names it whatever the channel). */
  email: string
  outgoing: Outgoing
  rendered: RenderedMessage
  headers: Record<string, string>
}

/** The RFC 5322 Message-ID of an outbox row: derived from its id, so every retry carries the same. */
export const rfcMessageId = (outboxId: string, domain: string) => `<${outboxId}@${domain}>`

const linkOf =
  (base: string, key: Buffer, message: Pick<MessageRow, 'id' | 'clientId'>) =>
  (kind: 'open' | 'click' | 'unsubscribe', url?: string) =>
    `${base}/${kind === 'open' ? 't/o' : kind === 'click' ? 't/c' : 'u'}/${encodeLinkToken(key, message.clientId, kind, message.id, url)}`

/**
 * What one recipient's render reads: the plan's variables, the contact's, their unsubscribe link
 * and their preference centre.
 */
export function recipientVariables(
  settings: ComposeSettings,
  key: Buffer,
  plan: Pick<ComposePlan, 'variables'>,
  message: Pick<MessageRow, 'id' | 'clientId' | 'contactId'>,
  /** The contact as a template sees it (`contact.*`). */
  contact: Record<string, unknown>,
): RenderVariables {
  return {
    ...plan.variables,
    contact,
    unsubscribe_url: linkOf(settings.publicUrl, key, message)('unsubscribe'),
    preferences_url: settings.publicUrl + preferencesPath(key, message.clientId, message.contactId),
  }
}

/** One recipient's message from its rendered template. */
export function composeRendered(
  settings: ComposeSettings,
  key: Buffer,
  plan: ComposePlan,
  message: Pick<MessageRow, 'id' | 'clientId' | 'to'>,
  contact: ContactRow,
  /** The provider's callback path, where it reports delivery (text channels). */
  callbackPath: string | null,
  rendered: RenderedMessage,
  /** The recipient's link, as their render printed it (recipientVariables made it). */
  unsubscribeUrl: string,
): Composed {
  const base = settings.publicUrl
  const link = linkOf(base, key, message)
  const messageId = rfcMessageId(message.id, plan.idDomain)

  if (plan.channel !== 'email') {
    const text = rendered.body_text ?? ''
    return {
      email: contact.email,
      rendered,
      headers: {},
      outgoing: {
        channel: plan.channel,
        id: message.id,
        clientId: message.clientId,
        messageId,
        to: contact.phone ?? message.to,
        from: null,
        body: text,
        statusCallbackUrl: callbackPath === null ? null : base + callbackPath,
      },
    }
  }

  let html = rendered.body_html
  if (html !== null) {
    const own = `${base}/`
    html = trackLinks(
      html,
      (url) => (url.startsWith(own) ? null : link('click', url)),
      `<img src="${link('open')}" width="1" height="1" alt="" style="display:none">`,
    )
  }
  const inbound = settings.inboundDomain
  const verp = (purpose: string) =>
    `${purpose}+${encodeVerpToken(key, message.clientId, purpose, message.id)}@${inbound}`
  const headers: Record<string, string> = plan.bulk
    ? {
        'List-Unsubscribe': inbound
          ? `<${unsubscribeUrl}>, <mailto:${verp('unsubscribe')}>`
          : `<${unsubscribeUrl}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        ...plan.headers,
      }
    : { ...plan.headers }
  const sender = plan.sender!
  const replyTo = inbound ? verp('reply') : sender.replyTo
  return {
    email: contact.email,
    rendered: { ...rendered, body_html: html },
    headers,
    outgoing: {
      channel: 'email',
      id: message.id,
      clientId: message.clientId,
      messageId,
      from: { email: sender.fromEmail, name: sender.fromName },
      replyTo,
      to: contact.email,
      envelopeFrom: inbound ? verp('bounce') : sender.fromEmail,
      subject: rendered.subject ?? '',
      html,
      text: rendered.body_text,
      headers,
      dkim: plan.dkim,
    },
  }
}
