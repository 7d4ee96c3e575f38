import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { clients } from './clients'

/**
 * A client's own sending accounts (`PUT /clients/{id}/sending`): what it does not set falls back to
 * the instance settings. `profile` is the stored form of the API's body, its secrets (SMTP
 * password, Twilio auth token, feedback credentials) encrypted under the instance key. `version`
 * moves on every change, so the send path knows to replace a pool made from an older one.
 * `feedback_token` names the client in its ESP feedback URLs (`/hooks/{provider}/{token}`).
 */
export const sendingProfiles = sqliteTable('sending_profiles', {
  clientId: text('client_id')
    .primaryKey()
    .references(() => clients.id),
  profile: text('profile', { mode: 'json' }).$type<StoredProfile>().notNull(),
  version: integer('version').notNull(),
  feedbackToken: text('feedback_token').notNull().unique(),
  updatedAt: integer('updated_at').notNull(),
})

/** One text channel's account: a provider and, for Twilio, its credentials (the token sealed). */
export interface StoredTextChannel {
  provider: 'inherit' | 'capture' | 'twilio' | 'simulator'
  twilio_account_sid?: string
  /** Encrypted (`v1:…`). */
  twilio_auth_token?: string
  twilio_base_url?: string
  from?: string
  /** SMS only: the answer to HELP/INFO (a default naming the client when unset). */
  help_text?: string
}

export interface StoredProfile {
  email: {
    provider: 'inherit' | 'capture' | 'smtp' | 'simulator'
    /** Encrypted (`v1:…`): the URL carries the password. */
    smtp_url?: string
    pool?: number
    throttles?: Record<string, number>
    hourly_cap?: number
  }
  sms: StoredTextChannel
  voice: StoredTextChannel
  whatsapp: StoredTextChannel
  rcs: StoredTextChannel
  default_sender_id: string | null
  footer: { company?: string; postal_address?: string }
  feedback: {
    ses?: { enabled: boolean }
    /** The password encrypted. */
    postmark?: { username: string; password: string }
    /** Encrypted. */
    mailgun?: { signing_key: string }
    sendgrid?: { public_key: string }
  }
}

export type SendingProfileRow = typeof sendingProfiles.$inferSelect
