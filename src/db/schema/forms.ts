import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
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
