import type { AppContext } from '../../context'
import type { MessageRow } from '../../db/schema'
import { recordBounce, recordComplaint, recordReply, unsubscribeViaMessage } from '../messages/activity'
import { snippetOf } from '../messages/snippet'
import {
  autoReplyReason,
  deliveryStatusOf,
  feedbackReportOf,
  headerRecipients,
  type ParsedMail,
  parseMail,
  reportKindOf,
  returnedMessageOf,
} from './mail'
import { bounceOf, feedbackTypeOf, fieldsOf, headerBlock, originalMailFromOf } from './report'
import { findVerp, messageByRfcId, type Resolved, resolveVerp } from './verp'

// One inbound message, classified and routed to the activity verbs:
// DSN → bounce, ARF abuse report → complaint, mail to unsubscribe+ → unsubscribe, anything a
// person wrote back → reply. Whatever cannot be tied to one of our messages is "ignored" with
// a reason: inbound mail is untrusted input, and a bad message must never become a 500 or a
// rejected SMTP transaction that makes the sender retry forever.

export interface InboundEnvelope {
  /** MAIL FROM; '' for the null sender (<>), undefined when unknown. */
  from?: string | null
  to: readonly string[]
}

export interface InboundResult {
  kind: 'bounce' | 'complaint' | 'reply' | 'unsubscribe' | 'ignored'
  message_id?: string
  reply_id?: string
  bounce_type?: 'hard' | 'soft'
  reason?: string
}

export interface InboundOptions {
  envelope?: InboundEnvelope
  /** A tenant-scoped caller may only act on its own client's messages. */
  clientId?: string | null
}

/** Stored reply text is capped like a template's body_text. */
const MAX_REPLY_TEXT = 128 * 1024

const ignored = (reason: string, message?: MessageRow): InboundResult => ({
  kind: 'ignored',
  ...(message ? { message_id: message.id } : {}),
  reason,
})

/** A message read from its raw MIME, or why it could not be. */
export type ReadMail = { ok: true; mail: ParsedMail } | { ok: false; reason: string }

/** The I/O half: parsing the MIME (async; writes nothing). */
export async function readMail(raw: Buffer | string): Promise<ReadMail> {
  try {
    return { ok: true, mail: await parseMail(raw) }
  } catch (err) {
    return { ok: false, reason: `the message could not be parsed: ${(err as Error).message}` }
  }
}

/** One inbound message, parsed and routed (the SMTP listener's way in). */
export async function receiveInbound(
  app: AppContext,
  raw: Buffer | string,
  options: InboundOptions = {},
): Promise<InboundResult> {
  return await routeInbound(app, await readMail(raw), options)
}

/** The write half: synchronous, so a verb runs it in its transaction. */
export async function routeInbound(
  app: AppContext,
  read: ReadMail,
  options: InboundOptions = {},
): Promise<InboundResult> {
  if (!read.ok) return ignored(read.reason)
  const { mail } = read
  const at = app.clock.now()
  const envelope = options.envelope
  const recipients = envelope?.to.length ? envelope.to : headerRecipients(mail)
  const verp = findVerp(recipients, app.config.inboundDomain)
  const viaVerp: Resolved | null = verp ? await resolveVerp(app, verp) : null
  if (viaVerp && !viaVerp.ok) return ignored(viaVerp.reason)
  const mine = (m: MessageRow | null | undefined) =>
    m && (!options.clientId || m.clientId === options.clientId) ? m : null
  const verpMessage = mine(viaVerp?.ok ? viaVerp.message : null)
  if (viaVerp?.ok && !verpMessage) return ignored('not a message of this client')

  const kind = reportKindOf(mail)
  if (kind === 'delivery-status') {
    const status = deliveryStatusOf(mail)
    const bounce = status === undefined ? null : bounceOf(status)
    if (!bounce) return ignored('delivery report without a failed or delayed recipient')
    const m = verpMessage ?? mine(await returnedMessage(app, mail))
    if (!m) return ignored('delivery report for a message Herald did not send')
    // A message bounces once; only a hard bounce after a soft one is recorded again (activity.ts).
    const recorded = await recordBounce(app, m, bounce, at)
    const note = recorded ? {} : { reason: 'the message had already bounced; nothing changed' }
    return { kind: 'bounce', message_id: m.id, bounce_type: bounce.type, ...note }
  }
  if (kind === 'feedback-report') {
    const report = feedbackReportOf(mail) ?? ''
    const type = feedbackTypeOf(report)
    const m =
      verpMessage ?? mine(await returnedMessage(app, mail)) ?? mine(await byOriginalSender(app, report))
    if (type !== 'abuse')
      return ignored(`feedback report of type ${type ?? '(none)'} is not a complaint`, m ?? undefined)
    if (!m) return ignored('feedback report for a message Herald did not send')
    await recordComplaint(app, m, at)
    return { kind: 'complaint', message_id: m.id }
  }

  if (verp?.purpose === 'unsubscribe' && verpMessage) {
    const changed = await unsubscribeViaMessage(app, verpMessage, 'mailto', at)
    return {
      kind: 'unsubscribe',
      message_id: verpMessage.id,
      ...(changed ? {} : { reason: 'already unsubscribed' }),
    }
  }
  const auto = autoReplyReason(mail, envelope?.from)
  if (auto) return ignored(auto, verpMessage ?? undefined)
  if (verp?.purpose === 'bounce')
    return ignored('mail to a bounce address that is not a delivery report', verpMessage ?? undefined)

  // A reply whose address lost its token (forwarded, retyped) is still tied by its headers.
  const m = verpMessage ?? mine(await messageByRfcId(app, [mail.inReplyTo, referencesOf(mail)]))
  if (!m) return ignored('not addressed to a Herald address and not a reply to a Herald message')
  const from = mail.from?.value.find((a) => a.address)?.address ?? envelope?.from ?? ''
  if (!from) return ignored('a reply without a sender address', m)
  const text = (mail.text ?? '').trimEnd()
  const replyId = await recordReply(
    app,
    m,
    {
      from,
      subject: mail.subject ?? null,
      snippet: snippetOf(text),
      text: text === '' ? null : text.slice(0, MAX_REPLY_TEXT),
    },
    at,
  )
  return { kind: 'reply', message_id: m.id, reply_id: replyId }
}

const referencesOf = (mail: ParsedMail) =>
  Array.isArray(mail.references) ? mail.references.join(' ') : mail.references

/** The outbox message a report returns, by the Message-ID in its returned headers. */
async function returnedMessage(app: AppContext, mail: ParsedMail): Promise<MessageRow | null> {
  const returned = returnedMessageOf(mail)
  if (returned === undefined) return null
  return await messageByRfcId(app, [fieldsOf(headerBlock(returned)).get('message-id')])
}

/** ARF's Original-Mail-From is the envelope sender of the reported message: our bounce+ address. */
async function byOriginalSender(app: AppContext, report: string): Promise<MessageRow | null> {
  const from = originalMailFromOf(report)
  const verp = from ? findVerp([from], app.config.inboundDomain) : null
  const resolved = verp ? await resolveVerp(app, verp) : null
  return resolved?.ok ? resolved.message : null
}
