import { Database } from 'bun:sqlite'
import { join } from 'node:path'

// How a command knows a server has the data directory open: `herald serve` holds an exclusive
// SQLite lock on a small file beside the data file for as long as it runs. The operating system
// drops the lock with the process, so a server killed with -9 leaves nothing stale behind (a pid
// file would). The data file itself cannot tell: in WAL mode an idle server holds no lock on it.

export const LOCK_FILE = 'herald.lock'

export interface ServerLock {
  release(): void
}

async function openLock(dataDir: string): Promise<Database> {
  // SQLite's default rollback journal (never WAL here): there EXCLUSIVE keeps every other
  // connection out, readers included.
  const db = new Database(join(dataDir, LOCK_FILE), { create: true })
  await db.run('PRAGMA busy_timeout = 0')
  return db
}

/** Taken by `herald serve`; null when another process holds it already. */
export async function holdServerLock(dataDir: string): Promise<ServerLock | null> {
  const db = await openLock(dataDir)
  try {
    await db.run('BEGIN EXCLUSIVE')
  } catch {
    db.close()
    return null
  }
  return {
    async release() {
      await db.run('ROLLBACK')
      db.close()
    },
  }
}

/** Whether a running server (or another command holding the lock) has the data directory open. */
export async function serverHoldsDataDir(dataDir: string): Promise<boolean> {
  const lock = await holdServerLock(dataDir)
  lock?.release()
  return lock === null
}
