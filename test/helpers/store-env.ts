import { DIALECT } from '../../src/db/dialect'
import { migratedDatabase } from './pg-database'

// For a process or context a test starts itself (the built binary, createAppContext): on a
// PostgreSQL run, a new migrated database of its own, as a new data directory gets a new SQLite
// file. The run's own HERALD_DATABASE_URL only says which store; it names no real database.

/** Environment naming the store a new server should open: nothing extra on SQLite. */
export async function storeEnv(): Promise<Record<string, string>> {
  return DIALECT === 'postgres' ? { HERALD_DATABASE_URL: await migratedDatabase() } : {}
}
