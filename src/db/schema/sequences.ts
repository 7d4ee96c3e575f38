import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { SEQUENCE_STATUSES } from '../../lib/enums'
import { clients } from './clients'

/**
 * A sequence: linear cold outreach, its steps as the API takes them
 * (`[{channel, template_id? | subject? + body_html? + body_text?, delay}]`, delay stored as ms
 * beside what was written) and its settings. Every step's email comes from one sender.
 */
export const sequences = sqliteTable(
  'sequences',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    name: text('name').notNull(),
    status: text('status', { enum: SEQUENCE_STATUSES }).notNull().default('draft'),
    steps: text('steps', { mode: 'json' }).$type<Record<string, unknown>[]>().notNull(),
    senderId: text('sender_id'),
    stopOnReply: integer('stop_on_reply', { mode: 'boolean' }).notNull().default(true),
    /** `{days: [1..7], start: "HH:MM", end: "HH:MM"}` in the contact's time zone, or null: any time. */
    sendingWindow: text('sending_window', { mode: 'json' }).$type<{
      days: number[]
      start: string
      end: string
    }>(),
    /** Messages a day this sequence's sender may be given by sequences, or null: no limit. */
    dailyLimit: integer('daily_limit'),
    activatedAt: integer('activated_at'),
    archivedAt: integer('archived_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('sequences_client_idx').on(t.clientId, t.id)],
)

export type SequenceRow = typeof sequences.$inferSelect
