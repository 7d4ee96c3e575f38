import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { FORM_STATUSES } from '../../lib/enums'
import { clients } from './clients'

/**
 * A signup form: the public page `/f/{id}` and its embeddable HTML subscribe people to
 * `list_ids`, asking for `fields` (email always) under `consent_text`.
 */
export const forms = sqliteTable(
  'forms',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    name: text('name').notNull(),
    listIds: text('list_ids', { mode: 'json' }).$type<string[]>().notNull(),
    fields: text('fields', { mode: 'json' }).$type<string[]>().notNull(),
    doubleOptIn: integer('double_opt_in', { mode: 'boolean' }).notNull().default(true),
    confirmationTemplateId: text('confirmation_template_id'),
    consentText: text('consent_text').notNull(),
    successUrl: text('success_url'),
    confirmedUrl: text('confirmed_url'),
    status: text('status', { enum: FORM_STATUSES }).notNull().default('active'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('forms_client_idx').on(t.clientId, t.id)],
)

export type FormRow = typeof forms.$inferSelect

/**
 * When a double opt-in confirmation was last sent to a contact through a form (or a list, for
 * members added by the API): asking again within the hour sends no second message, so a form
 * cannot be used to flood someone's inbox.
 */
export const optInConfirmations = sqliteTable(
  'opt_in_confirmations',
  {
    /** The form's id, or the list's. */
    sourceId: text('source_id').notNull(),
    contactId: text('contact_id').notNull(),
    sentAt: integer('sent_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sourceId, t.contactId] })],
)
