import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { IMPORT_STATUSES } from '../../lib/enums'
import { clients } from './clients'

/** A CSV import job. The uploaded file is spooled to the data directory and processed in the background. */
export const contactImports = sqliteTable(
  'contact_imports',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    status: text('status', { enum: IMPORT_STATUSES }).notNull().default('queued'),
    file: text('file').notNull(),
    listId: text('list_id'),
    updateExisting: integer('update_existing', { mode: 'boolean' }).notNull().default(false),
    totalRows: integer('total_rows'),
    processed: integer('processed').notNull().default(0),
    inserted: integer('inserted').notNull().default(0),
    updated: integer('updated').notNull().default(0),
    skipped: integer('skipped').notNull().default(0),
    errors: text('errors', { mode: 'json' })
      .$type<{ row: number; message: string }[]>()
      .notNull()
      .default([]),
    failure: text('failure'),
    /**
     * While running: until when the process running it holds it (renewed with each batch). A job
     * whose lease ran out was left by a process that died, and goes on in whichever runs next.
     */
    leasedUntil: integer('leased_until'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    finishedAt: integer('finished_at'),
  },
  (t) => [index('contact_imports_client_idx').on(t.clientId, t.id)],
)

export type ContactImportRow = typeof contactImports.$inferSelect
