import type { KeyObject } from 'node:crypto'
import type { Awaitable } from '../lib/awaitable'

// The one small interface every channel provider implements. The send queue
// renders a message, hands it to the provider of its channel and records the outcome; adding a
// provider never touches the queue.

export type Channel = 'email' | 'sms' | 'voice' | 'whatsapp' | 'rcs'
export const CHANNELS: readonly Channel[] = ['email', 'sms', 'voice', 'whatsapp', 'rcs']

export interface OutgoingEmail {
  channel: 'email'
  /** Outbox row id (UUID). */
  id: string
  clientId: string
  /** RFC 5322 Message-ID with angle brackets; the same on every attempt of this message. */
  messageId: string
  from: { email: string; name: string | null }
  replyTo: string | null
  to: string
  /** SMTP envelope sender (MAIL FROM): a VERP bounce address when an inbound domain is set. */
  envelopeFrom: string
  subject: string
  html: string | null
  text: string | null
  /** Extra headers (List-Unsubscribe, List-Unsubscribe-Post, Feedback-ID…), names as written. */
  headers: Record<string, string>
  /** Sign with this key when the sender's domain is verified; null = unsigned. */
  dkim: DkimSigning | null
}

export interface OutgoingText {
  channel: 'sms' | 'voice' | 'whatsapp' | 'rcs'
  id: string
  clientId: string
  messageId: string
  /** E.164 number. */
  to: string
  /** Sender number or id; null = the provider's configured default. */
  from: string | null
  /** SMS / WhatsApp / RCS text, or the text-to-speech script for voice. */
  body: string
  /** Where the provider should post delivery status updates (its callback), if it has one. */
  statusCallbackUrl: string | null
}

export type Outgoing = OutgoingEmail | OutgoingText

/** How an email is DKIM-signed (nodemailer's `dkim` options; the domains service finds the key). */
export interface DkimSigning {
  domainName: string
  keySelector: string
  privateKey: KeyObject
  headerFieldNames: string
}

export interface SendResult {
  /** The provider's own id for the message (SMTP queue id, Twilio SID…), if it gave one. */
  providerMessageId: string | null
  /** True when the next hop accepted it (SMTP 250, capture); false when a callback will tell. */
  delivered: boolean
}

export interface SendOptions {
  /** Aborted when the queue gives up on this call (its deadline passed). */
  signal?: AbortSignal
}

/** A failed send. Retryable ones are tried again with backoff; others fail the message. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** Provider status/code when there is one (SMTP reply code, HTTP status, Twilio error code). */
    readonly code?: string | number,
  ) {
    super(message)
  }
}

/** What the send queue needs to know about a provider, instead of asking its name. */
export interface ProviderCapabilities {
  /** Herald keeps the rendered bodies of what it sent (capture mailbox, simulator); else only headers. */
  storesContent: boolean
  /** Delivery is reported after the send (status callbacks, simulated traffic), not by the send itself. */
  reportsDelivery: boolean
  /** Mail reaches real inboxes: the From address must be verified and is DKIM-signed. */
  needsVerifiedSender: boolean
  /**
   * A message costs real CPU (MIME, DKIM, a protocol conversation), so the queue composes and
   * sends it on its send threads, built from the configuration (HERALD_SEND_THREADS). Instant
   * providers (capture) leave it unset and stay on the main thread: no hop to pay for.
   */
  offThread?: boolean
}

/** A request a provider posts back to Herald (a status callback), as the HTTP layer hands it over. */
export interface CallbackRequest {
  /** The URL the provider was given: HERALD_PUBLIC_URL + path + query. */
  url: string
  headers: Headers
  /** The body, already read (at most 64 KiB). */
  body: string
}

export type CallbackAnswer =
  | { ok: true }
  | { ok: false; status: 403 | 422; code: 'FORBIDDEN' | 'VALIDATION_FAILED'; message: string }

/** A provider's inbound endpoint under the public URL; parsing and authentication stay in its file. */
export interface ProviderCallback {
  /** POST path, e.g. /api/v1/inbound/twilio/status. */
  path: string
  handle(request: CallbackRequest, feedback: ChannelFeedback): CallbackAnswer | Promise<CallbackAnswer>
}

export interface ChannelProvider {
  /** `capture`, `smtp`, `simulator`, `twilio`: stored on the message as `provider`. */
  readonly name: string
  readonly capabilities: ProviderCapabilities
  /** Where the provider posts delivery reports, when it does. */
  readonly callback?: ProviderCallback
  /**
   * Sends one message. The queue bounds every call (HERALD_SEND_TIMEOUT_MS): when `signal`
   * aborts, the provider drops what it was doing for this message (closes the connection
   * delivering it), and the call counts as a retryable failure whether or not it settles.
   */
  send(message: Outgoing, options?: SendOptions): Promise<SendResult>
  /** Releases pools and timers. */
  close(): Promise<void>
}

/**
 * What a provider reports after the send (simulator traffic, Twilio status callbacks). The
 * send queue implements it by recording the same events and counters real traffic causes.
 */
export interface ChannelFeedback {
  /** The outbox id of the message `provider` took under its own id, if it is one of ours. */
  messageOf(provider: string, providerMessageId: string): Awaitable<string | null>
  /** The time reports are recorded at (the app's clock). */
  now(): number
  delivered(outboxId: string, at: number): Awaitable<void>
  failed(outboxId: string, reason: string, at: number): Awaitable<void>
  opened(outboxId: string, userAgent: string | null, at: number): Awaitable<void>
  clicked(outboxId: string, url: string, userAgent: string | null, at: number): Awaitable<void>
  bounced(
    outboxId: string,
    bounce: { type: 'hard' | 'soft'; statusCode: string | null; diagnostic: string | null },
    at: number,
  ): Awaitable<void>
  replied(
    outboxId: string,
    reply: { from: string; subject: string | null; text: string },
    at: number,
  ): Awaitable<void>
}
