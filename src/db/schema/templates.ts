import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { TEMPLATE_CHANNELS } from '../../lib/enums'
import { clients } from './clients'

/** Liquid sources as the user wrote them; they are parsed (and CSS-inlined) on first render. */
export const templates = sqliteTable(
  'templates',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    name: text('name').notNull(),
    channel: text('channel', { enum: TEMPLATE_CHANNELS }).notNull().default('email'),
    subject: text('subject'),
    bodyHtml: text('body_html'),
    bodyText: text('body_text'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('templates_client_idx').on(t.clientId, t.id)],
)

export type TemplateRow = typeof templates.$inferSelect
