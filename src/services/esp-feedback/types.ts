import type { Bounce } from '../messages/activity'

/** The ESPs whose notifications come to `/hooks/{provider}/{token}`. */
export const ESP_PROVIDERS = ['ses', 'postmark', 'mailgun', 'sendgrid'] as const
export type EspProvider = (typeof ESP_PROVIDERS)[number]

/**
 * One thing a provider reported about one message, in Herald's terms: the provider's own message
 * id and/or the Message-ID header we gave it, whichever the payload carries.
 */
export interface EspEvent {
  kind: 'bounce' | 'complaint' | 'delivery'
  bounce?: Bounce
  providerIds: string[]
  /** A Message-ID header value (`<outbox-id@domain>`, angle brackets optional). */
  rfcMessageId: string | null
  at: number
}

/** The answer a notification gets, in HTTP terms: the provider only needs a 2xx or not. */
export type EspOutcome =
  | { ok: true; recorded: number; ignored: number; confirmed?: boolean }
  | { ok: false; status: 400 | 401 | 503; message: string }

/** A time in a payload (ISO string, or Unix seconds), else `fallback`. */
export function timeOf(value: unknown, fallback: number): number {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.round(value * 1000)
  if (typeof value === 'string') {
    const t = Date.parse(value)
    if (Number.isFinite(t)) return t
  }
  return fallback
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

export const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)
