import type { AddressObject, ParsedMail } from 'mailparser'

// Reading one inbound message with mailparser: who it was for, whether it is a report, whether
// a machine wrote it. Report parts are kept as attachments (keepDeliveryStatus, ignoreEmbedded)
// so their raw fields and the returned message's headers can be read as they were sent.

export type { ParsedMail }

/**
 * mailparser is loaded on the first inbound message, not at start: a server that receives no
 * mail never holds its ~4 MB of code in the JS heap (the heap's collection thresholds grow
 * with what stays live, and so does the peak memory of a long send).
 */
export async function parseMail(raw: Buffer | string): Promise<ParsedMail> {
  const { simpleParser } = await import('mailparser')
  return simpleParser(raw, {
    keepDeliveryStatus: true,
    ignoreEmbedded: true,
    skipTextToHtml: true,
    skipImageLinks: true,
    checksumAlgo: false,
  })
}

type HeaderValue = ReturnType<ParsedMail['headers']['get']>

const isAddressObject = (v: unknown): v is AddressObject =>
  typeof v === 'object' && v !== null && Array.isArray((v as AddressObject).value)

/** Every address in a header value, whether mailparser parsed it as addresses or left it a string. */
function addressesIn(value: HeaderValue): string[] {
  if (value === undefined || value === null) return []
  if (Array.isArray(value)) return value.flatMap((v) => addressesIn(v as HeaderValue))
  if (typeof value === 'string') return value.match(/[^\s<>,;:"]+@[^\s<>,;:"]+/g) ?? []
  if (!isAddressObject(value)) return []
  const flat = (list: AddressObject['value']): string[] =>
    list.flatMap((a) => (a.group ? flat(a.group) : a.address ? [a.address] : []))
  return flat(value.value)
}

/**
 * Recipients named in the headers, for mail without an SMTP envelope (the REST door): the
 * delivery headers an MTA adds first (they hold the real envelope recipient), then To and Cc.
 */
export function headerRecipients(mail: ParsedMail): string[] {
  return ['delivered-to', 'x-original-to', 'to', 'cc'].flatMap((h) => addressesIn(mail.headers.get(h)))
}

const text = (mail: ParsedMail, name: string) => {
  const v = mail.headers.get(name)
  if (v === undefined) return undefined
  return (Array.isArray(v) ? String(v[0]) : String(v)).trim().toLowerCase()
}

/**
 * Why a message is an automatic answer (RFC 3834 Auto-Submitted, the de-facto X-Autoreply and
 * Precedence headers, or a null envelope sender), or null for mail a person wrote.
 */
export function autoReplyReason(mail: ParsedMail, envelopeFrom?: string | null): string | null {
  const submitted = text(mail, 'auto-submitted')
  if (submitted && submitted !== 'no') return `auto-reply (Auto-Submitted: ${submitted})`
  for (const h of ['x-autoreply', 'x-autorespond']) {
    const v = text(mail, h)
    if (v !== undefined && v !== 'no') return `auto-reply (${h})`
  }
  const precedence = text(mail, 'precedence')
  if (precedence && ['auto_reply', 'bulk', 'junk'].includes(precedence))
    return `auto-reply (Precedence: ${precedence})`
  // RFC 3834 §3.3: automatic responses are sent with an empty MAIL FROM; people never are.
  if (envelopeFrom === '') return 'auto-reply (null envelope sender)'
  return null
}

export type ReportKind = 'delivery-status' | 'feedback-report'

const STATUS_TYPES = ['message/delivery-status', 'message/global-delivery-status']
const FEEDBACK_TYPES = ['message/feedback-report']
const RETURNED_TYPES = ['message/rfc822', 'text/rfc822-headers', 'message/global', 'message/global-headers']

const partOf = (mail: ParsedMail, types: readonly string[]) =>
  mail.attachments.find((a) => types.includes(a.contentType.toLowerCase()))?.content.toString('utf8')

/** RFC 3464 / RFC 5965 reports, by the report-type of multipart/report or, failing that, by their parts. */
export function reportKindOf(mail: ParsedMail): ReportKind | null {
  const type = mail.headers.get('content-type') as { value?: string; params?: Record<string, string> }
  if (type?.value?.toLowerCase() === 'multipart/report') {
    const kind = type.params?.['report-type']?.toLowerCase()
    if (kind === 'delivery-status' || kind === 'feedback-report') return kind
  }
  if (partOf(mail, STATUS_TYPES) !== undefined) return 'delivery-status'
  if (partOf(mail, FEEDBACK_TYPES) !== undefined) return 'feedback-report'
  return null
}

export const deliveryStatusOf = (mail: ParsedMail) => partOf(mail, STATUS_TYPES)
export const feedbackReportOf = (mail: ParsedMail) => partOf(mail, FEEDBACK_TYPES)
/** The returned message (or only its headers) a report carries. */
export const returnedMessageOf = (mail: ParsedMail) => partOf(mail, RETURNED_TYPES)
