import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { clients } from './clients'

/** `member_count` is maintained in the same transaction as every membership change. */
export const lists = sqliteTable(
  'lists',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    name: text('name').notNull(),
    description: text('description'),
    memberCount: integer('member_count').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('lists_client_idx').on(t.clientId, t.id)],
)

export const listMembers = sqliteTable(
  'list_members',
  {
    listId: text('list_id').notNull(),
    contactId: text('contact_id').notNull(),
    addedAt: integer('added_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.listId, t.contactId] }),
    index('list_members_contact_idx').on(t.contactId),
  ],
)

export type ListRow = typeof lists.$inferSelect
