import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { LIST_OPT_INS, MEMBERSHIP_STATUSES } from '../../lib/enums'
import { clients } from './clients'

/**
 * `member_count` (confirmed members) and `unconfirmed_count` are maintained in the same
 * transaction as every membership change. `public` lists are offered in the preference centre.
 */
export const lists = sqliteTable(
  'lists',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    name: text('name').notNull(),
    description: text('description'),
    optIn: text('opt_in', { enum: LIST_OPT_INS }).notNull().default('single'),
    public: integer('public', { mode: 'boolean' }).notNull().default(false),
    publicName: text('public_name'),
    memberCount: integer('member_count').notNull().default(0),
    unconfirmedCount: integer('unconfirmed_count').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('lists_client_idx').on(t.clientId, t.id)],
)

/**
 * A contact on a list. Only `confirmed` members receive campaigns, journeys and sequences; an
 * `unsubscribed` row remembers that the person left this list (the preference centre).
 */
export const listMembers = sqliteTable(
  'list_members',
  {
    listId: text('list_id').notNull(),
    contactId: text('contact_id').notNull(),
    status: text('status', { enum: MEMBERSHIP_STATUSES }).notNull().default('confirmed'),
    addedAt: integer('added_at').notNull(),
    confirmedAt: integer('confirmed_at'),
  },
  (t) => [
    primaryKey({ columns: [t.listId, t.contactId] }),
    index('list_members_contact_idx').on(t.contactId),
    // The purge of stale unconfirmed members walks this, not every membership.
    index('list_members_unconfirmed_idx')
      .on(t.addedAt)
      .where(sql`${t.status} = 'unconfirmed'`),
  ],
)

export type ListRow = typeof lists.$inferSelect
export type ListMemberRow = typeof listMembers.$inferSelect
