import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

export const clients = sqliteTable(
  'clients',
  {
    id: text('id').primaryKey(),
    /**
     * A small stable number for the client, the first column of contacts' unique email key (an
     * integer there keeps that index's pages a quarter smaller than the 36-character id).
     * An explicit column, not the implicit rowid: VACUUM (and VACUUM INTO, our backups) may renumber
     * rowids of a table without an INTEGER PRIMARY KEY, which would orphan contacts.client_no.
     * Every insert sets it to nextClientNo (the DDL default 0 is only for the migration's ADD COLUMN).
     */
    no: integer('no').notNull().default(0),
    name: text('name').notNull(),
    industry: text('industry'),
    /**
     * IANA time zone of the client's audience: a contact without a time zone of its own is read in
     * it (journeys' wait `until`, sequences' sending window). Null: UTC.
     */
    timezone: text('timezone'),
    status: text('status', { enum: ['active', 'suspended'] })
      .notNull()
      .default('active'),
    /** Exact number of contacts, kept in the transaction of every insert and erasure (list totals). */
    contactCount: integer('contact_count').notNull().default(0),
    /**
     * Contacts bounced hard, complained or whose address is suppressed, each once: the deliverability
     * score's list_hygiene (the share of suppressed or bounced contacts). Kept by triggers on
     * contacts and suppressions (migration 0030), so every writer, bulk imports included, keeps it
     * exact; counting it per request probed every suppression in the contacts' email index.
     */
    unreachableCount: integer('unreachable_count').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('clients_name_idx').on(t.name), uniqueIndex('clients_no_idx').on(t.no)],
)

/** The `no` of a client being inserted: one past the highest, inside the insert's transaction. */
export const nextClientNo = sql<number>`(SELECT coalesce(max("no"), 0) + 1 FROM "clients")`

export type ClientRow = typeof clients.$inferSelect
