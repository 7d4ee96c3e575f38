import { SQL } from 'bun'
import { applyPgMigrations } from '../../src/db/postgres/migrate'
import { blankDatabase, freshDatabase, setTemplateInitializer } from './postgres'
import { until } from './receiver'

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

/**
 * Resolves once one statement on the database waits for a lock (another process's row or key):
 * the moment a race test lets its first side commit. `watch` is a connection of the test's own.
 */
export async function untilOneWaitsOnLock(watch: SQL, what: string): Promise<void> {
  await until(
    async () => {
      const [r] = await watch`SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`
      return r.n === 1
    },
    10_000,
    what,
  )
}
