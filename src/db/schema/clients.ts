import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const clients = sqliteTable(
  'clients',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    industry: text('industry'),
    status: text('status', { enum: ['active', 'suspended'] })
      .notNull()
      .default('active'),
    /** Exact number of contacts, kept in the transaction of every insert and erasure (list totals). */
    contactCount: integer('contact_count').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('clients_name_idx').on(t.name)],
)

export type ClientRow = typeof clients.$inferSelect
