import type { DkimSigning } from '../services/domains/dkim'

// The one small interface every channel provider implements (DESIGN.md §8). The send queue
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
  /** Where the provider should post delivery status updates for this message. */
  statusCallbackUrl: string
}

export type Outgoing = OutgoingEmail | OutgoingText

export interface SendResult {
  /** The provider's own id for the message (SMTP queue id, Twilio SID…), if it gave one. */
  providerMessageId: string | null
  /** True when the next hop accepted it (SMTP 250, capture); false when a callback will tell. */
  delivered: boolean
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

export interface ChannelProvider {
  /** `capture`, `smtp`, `simulator`, `twilio`: stored on the message as `provider`. */
  readonly name: string
  send(message: Outgoing): Promise<SendResult>
  /** Releases pools and timers. */
  close(): Promise<void>
}

/**
 * What a provider reports after the send (simulator traffic, Twilio status callbacks). The
 * send queue implements it by recording the same events and counters real traffic causes.
 */
export interface ChannelFeedback {
  delivered(outboxId: string, at: number): void
  failed(outboxId: string, reason: string, at: number): void
  opened(outboxId: string, userAgent: string | null, at: number): void
  clicked(outboxId: string, url: string, userAgent: string | null, at: number): void
  bounced(
    outboxId: string,
    bounce: { type: 'hard' | 'soft'; statusCode: string | null; diagnostic: string | null },
    at: number,
  ): void
  replied(outboxId: string, reply: { from: string; subject: string | null; text: string }, at: number): void
}
