import { sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * Facts about the instance every process of it must agree on, by name. `secret_key_check`: a MAC
 * of a fixed text under the secret key, written by the first process on a PostgreSQL database, so
 * that a process started with another key is refused rather than failing to read what the others
 * encrypted and signed.
 */
export const instanceFacts = sqliteTable('instance_facts', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
})
