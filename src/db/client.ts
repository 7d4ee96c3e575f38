import { Database } from 'bun:sqlite'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import * as schema from './schema'

export type Db = ReturnType<typeof drizzle<typeof schema>>

export interface Store {
  sqlite: Database
  db: Db
  close(): void
}

/**
 * Opens the data file with its PRAGMAs (busy_timeout, WAL, synchronous=NORMAL, foreign_keys).
 * synchronous=NORMAL under WAL keeps commits durable against a process crash (kill -9) at a
 * fraction of FULL's cost (Bun's default).
 * SQLite's automatic WAL checkpoint stays on here (CLI commands, migrations); `herald serve`
 * turns it off for this connection once its checkpoint thread runs (checkpointer.ts).
 */
export async function openStore(file: string): Promise<Store> {
  const sqlite = new Database(file, { create: true, strict: true })
  await sqlite.run('PRAGMA busy_timeout = 5000')
  await sqlite.run('PRAGMA journal_mode = WAL')
  await sqlite.run('PRAGMA synchronous = NORMAL')
  await sqlite.run('PRAGMA foreign_keys = ON')
  const db = drizzle({ client: sqlite, schema })
  return {
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
