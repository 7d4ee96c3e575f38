import type { SQL } from 'bun'
import { SERVE_LOCK } from './lock-keys'

// How `herald serve` knows another process serves the same PostgreSQL database: it holds a
// session advisory lock on a connection of its own for as long as it runs. PostgreSQL drops the
// lock with the connection, so a process killed with -9 leaves nothing stale behind.

export interface PgServeLock {
  release(): Promise<void>
}

/** Taken by `herald serve`; null when another process holds it already. */
export async function holdPgServeLock(client: SQL): Promise<PgServeLock | null> {
  const conn = await client.reserve()
  try {
    const [row] = (await conn.unsafe(`SELECT pg_try_advisory_lock(${SERVE_LOCK}) AS held`)) as {
      held: boolean
    }[]
    if (!row?.held) {
      conn.release()
      return null
    }
  } catch (err) {
    conn.release()
    throw err
  }
  return {
    async release() {
      try {
        await conn.unsafe(`SELECT pg_advisory_unlock(${SERVE_LOCK})`)
      } finally {
        conn.release()
      }
    },
  }
}
