import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { CONSENT_ACTIONS, CONSENT_SOURCES } from '../../lib/enums'

/**
 * Proof of consent: one row per subscribe, confirm and unsubscribe, whatever door it came through.
 * Rows are only ever added; erasing a contact removes its rows with it.
 */
export const consents = sqliteTable(
  'consents',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    clientId: text('client_id').notNull(),
    contactId: text('contact_id').notNull(),
    listId: text('list_id'),
    action: text('action', { enum: CONSENT_ACTIONS }).notNull(),
    source: text('source', { enum: CONSENT_SOURCES }).notNull(),
    formId: text('form_id'),
    ip: text('ip'),
    userAgent: text('user_agent'),
    consentText: text('consent_text'),
    at: integer('at').notNull(),
  },
  (t) => [index('consents_contact_idx').on(t.contactId, t.seq)],
)

export type ConsentRow = typeof consents.$inferSelect
