import { drizzle } from 'drizzle-orm/bun-sql'
import type { Db, Store } from '../client'
import * as schema from '../schema-pg'
import { postgresHandle } from './handle'
import './jsonb'
import { applyPgMigrations } from './migrate'
import { type PgRunner, pgTransactions, transactionAware } from './transaction'

/** Connections in the pool: enough for reads beside the one open transaction. */
const POOL_SIZE = 10

/**
 * Opens the PostgreSQL store at `url` (a pool of connections through Bun's SQL client) and
 * applies the migrations it lacks. Its `db` is typed as the SQLite one: the tables queries are
 * built from are the pg-core twins on this store (schema/index.ts), with the same row types.
 */
export async function openPgStore(url: string): Promise<Store> {
  // Bun.SQL, not an import of SQL from 'bun': the bundle would evaluate that import at start,
  // loading Bun's SQL client on SQLite too.
  const client = new Bun.SQL({ url, max: POOL_SIZE })
  try {
    await applyPgMigrations(client)
  } catch (err) {
    await client.close()
    throw err
  }
  const root = drizzle({ client, schema })
  const transactions = pgTransactions(root as unknown as PgRunner)
  return {
    dialect: 'postgres',
    sqlite: postgresHandle(transactions),
    db: transactionAware(root, transactions) as unknown as Db,
    postgres: client,
    async close() {
      await client.close()
    },
  }
}
