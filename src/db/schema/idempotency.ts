import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * One row per (credential, Idempotency-Key). `status` is null while the first request is in
 * flight; afterwards it holds the stored response (statuses < 500 only) for 24 hours.
 */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    credentialId: text('credential_id').notNull(),
    key: text('key').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    bodyHash: text('body_hash').notNull(),
    status: integer('status'),
    responseBody: text('response_body'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.credentialId, t.key] })],
)
