import { Database } from 'bun:sqlite'
import type { SQL } from 'bun'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import type { Dialect } from './dialect'
import { drizzleClientOf, routedConnection } from './routing'
import * as schema from './schema'

export type Db = ReturnType<typeof drizzle<typeof schema>>

export interface Store {
  readonly dialect: Dialect
  /**
   * The data file's connection: the writer inside a transaction, a reader beside it outside
   * (routing.ts). On PostgreSQL, a handle that carries transactions and nothing else
   * (postgres/handle.ts).
   */
  sqlite: Database
  db: Db
  /** The PostgreSQL client (a pool), on that store only. */
  postgres?: SQL
  close(): Promise<void>
}

/**
 * Opens the data file with its PRAGMAs (busy_timeout, WAL, synchronous=NORMAL, foreign_keys):
 * one writer connection, and one read-only connection for reads outside a transaction.
 * synchronous=NORMAL under WAL keeps commits durable against a process crash (kill -9) at a
 * fraction of FULL's cost (Bun's default).
 * SQLite's automatic WAL checkpoint stays on here (CLI commands, migrations); `herald serve`
 * turns it off for the writer once its checkpoint thread runs (checkpointer.ts).
 */
export async function openStore(file: string): Promise<Store> {
  const writer = new Database(file, { create: true, strict: true })
  writer.run('PRAGMA busy_timeout = 5000')
  writer.run('PRAGMA journal_mode = WAL')
  writer.run('PRAGMA synchronous = NORMAL')
  writer.run('PRAGMA foreign_keys = ON')
  const reader = new Database(file, { strict: true })
  reader.run('PRAGMA busy_timeout = 5000')
  reader.run('PRAGMA query_only = 1')
  const sqlite = routedConnection(writer, reader)
  const db = drizzle({ client: drizzleClientOf(sqlite), schema })
  // Code that reaches the connection through drizzle (db.$client) gets the routed one itself, so
  // its transactions and its writer lock are the store's.
  Object.defineProperty(db, '$client', { value: sqlite })
  return {
    dialect: 'sqlite',
    sqlite,
    db,
    async close() {
      // Folds the WAL back into the main file so a stopped instance is one self-contained file.
      try {
        await sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
      } finally {
        sqlite.close()
      }
    },
  }
}
