import type { SQL } from 'bun'
import { sql } from 'drizzle-orm'
import { randomBase62 } from '../../lib/crypto'
import { type Wakers, WORKER_NAMES, type WorkerName } from '../../lib/wakers'
import type { Db } from '../client'
import { rawRows } from '../raw'

// Processes sharing a PostgreSQL database wake each other's workers through LISTEN/NOTIFY: a
// launch or a queued message on one process is picked up by the others at once rather than at
// their next poll, which stays as the net under a lost notification.
//
// A wake reaches the relay once the transaction that asked for it has ended, so the other
// processes read what it wrote. Each worker's notification waits NOTIFY_DELAY_MS, and the wakes
// within that window go as one: a burst of verbs costs one notification, not one each.

const CHANNEL = 'herald_wake'
const NOTIFY_DELAY_MS = 25

/**
 * Tells every process on the database, on the wake channel, that `name` happened: sent in the
 * caller's transaction, it is delivered when that commits (and not at all if it rolls back).
 */
export async function signalProcesses(db: Db, name: string): Promise<void> {
  await rawRows(db, sql`SELECT pg_notify(${CHANNEL}, ${`${name}:`})`)
}

export interface WakeChannel {
  stop(): Promise<void>
}

/** Listens on the database's wake channel and relays this process's wakes to it. */
export async function startWakeChannel(
  client: SQL,
  wakers: Wakers,
  /** Signals by name (signalProcesses): each runs in every process, this one included. */
  signals: Readonly<Record<string, () => void>> = {},
): Promise<WakeChannel> {
  // Each process knows its own notifications by this tag and does not wake itself twice.
  const self = randomBase62(12)
  const known = new Set<string>(WORKER_NAMES)
  const listener = await client.listen(CHANNEL, (payload: string) => {
    const [name, from] = payload.split(':')
    if (name && Object.hasOwn(signals, name)) signals[name]!()
    else if (from !== self && name && known.has(name)) wakers.wakeHere(name as WorkerName)
  })
  const pending = new Map<WorkerName, ReturnType<typeof setTimeout>>()
  let stopped = false
  wakers.relayTo((name) => {
    if (stopped || pending.has(name)) return
    pending.set(
      name,
      setTimeout(() => {
        pending.delete(name)
        if (stopped) return
        client`SELECT pg_notify(${CHANNEL}, ${`${name}:${self}`})`.catch(() => {
          // The database is away: the other processes' polls find the work.
        })
      }, NOTIFY_DELAY_MS),
    )
  })
  return {
    async stop() {
      stopped = true
      wakers.relayTo(null)
      for (const timer of pending.values()) clearTimeout(timer)
      pending.clear()
      await listener.unlisten()
    },
  }
}
