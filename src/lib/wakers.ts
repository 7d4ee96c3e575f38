import { afterTransaction } from './after-transaction'

// Verbs wake a background worker (after a launch, a new event, a queued import) without
// importing it: workers register their kick here by name when they start, and a kick with no
// worker running (the CLI, a test without workers) does nothing. One registry per process
// context, so two apps in one test process never wake each other's workers.

/** Every background worker a server runs; readiness expects each one registered. */
export const WORKER_NAMES = ['send', 'webhooks', 'imports', 'flows'] as const
export type WorkerName = (typeof WORKER_NAMES)[number]

export interface Wakers {
  /**
   * Wakes the named worker if one is running, and tells the relay (other processes) if any; when
   * the caller runs in a transaction, once it has ended.
   */
  wake(name: WorkerName): void
  /** Wakes the named worker of this process only (a wake another process relayed). */
  wakeHere(name: WorkerName): void
  /** Every wake is also handed to `relay`: processes sharing a database wake each other. */
  relayTo(relay: ((name: WorkerName) => void) | null): void
  register(name: WorkerName, kick: () => void): void
  unregister(name: WorkerName, kick: () => void): void
  /** Whether the named worker's loop is running (registered and not yet stopped). */
  running(name: WorkerName): boolean
}

export function createWakers(): Wakers {
  const kicks = new Map<WorkerName, () => void>()
  let relay: ((name: WorkerName) => void) | null = null
  return {
    wake: (name) =>
      afterTransaction(() => {
        kicks.get(name)?.()
        relay?.(name)
      }),
    wakeHere: (name) => kicks.get(name)?.(),
    relayTo: (fn) => {
      relay = fn
    },
    register: (name, kick) => {
      kicks.set(name, kick)
    },
    unregister: (name, kick) => {
      if (kicks.get(name) === kick) kicks.delete(name)
    },
    running: (name) => kicks.has(name),
  }
}
