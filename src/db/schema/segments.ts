import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { clients } from './clients'

export const segments = sqliteTable(
  'segments',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    name: text('name').notNull(),
    match: text('match', { enum: ['all', 'any'] })
      .notNull()
      .default('all'),
    ruleGroups: text('rule_groups', { mode: 'json' }).$type<unknown[]>().notNull(),
    estimatedSize: integer('estimated_size'),
    estimatedAt: integer('estimated_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('segments_client_idx').on(t.clientId, t.id)],
)

export type SegmentRow = typeof segments.$inferSelect
