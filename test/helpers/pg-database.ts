import { SQL } from 'bun'
import { applyPgMigrations } from '../../src/db/postgres/migrate'
import { blankDatabase, freshDatabase, setTemplateInitializer } from './postgres'

// Databases for the PostgreSQL tests: copies of a template migrated once per run with Herald's
// embedded PostgreSQL migrations, or a blank one for tests that build their own tables.

async function migrateTemplate(url: string): Promise<void> {
  const sql = new SQL({ url, max: 1 })
  try {
    await applyPgMigrations(sql)
  } finally {
    await sql.close()
  }
}

/** The URL of a database of its own holding Herald's schema, migrated. */
export function migratedDatabase(): Promise<string> {
  setTemplateInitializer(migrateTemplate)
  return freshDatabase()
}

/** A client on a blank database of its own (one connection). */
export async function blankClient(): Promise<SQL> {
  return new SQL({ url: await blankDatabase(), max: 1 })
}
