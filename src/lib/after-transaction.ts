import { AsyncLocalStorage } from 'node:async_hooks'

// What must wait until the caller's transaction has ended: waking a worker, here or in another
// process, whose first read would otherwise run before the commit and find nothing (on
// PostgreSQL, reads outside a transaction run on other connections), or noting in memory what
// the transaction did, which must not outlive a rollback. A transaction opens a scope; a call
// inside it is held until the outermost one ends.

interface Held {
  /** False once the transaction has ended: work it started and left running calls at once. */
  open: boolean
  readonly queued: { fn: () => void; committedOnly: boolean }[]
}

const held = new AsyncLocalStorage<Held>()

function hold(fn: () => void, committedOnly: boolean): void {
  const scope = held.getStore()
  if (scope?.open) scope.queued.push({ fn, committedOnly })
  else fn()
}

/**
 * Runs fn now, or when the transaction the caller runs in has ended, committed or rolled back
 * (a wake that finds nothing costs one pass). fn must not throw: by then the transaction has
 * committed, and its caller would hear of an error instead.
 */
export function afterTransaction(fn: () => void): void {
  hold(fn, false)
}

/**
 * As afterTransaction, but only once the outermost transaction has committed: dropped when it
 * rolls back. (A savepoint rolled back inside a transaction that then commits does not drop it:
 * hand it over only once the savepoint's work cannot fail any more.)
 */
export function afterCommit(fn: () => void): void {
  hold(fn, true)
}

/** Runs a transaction's body; what it handed to afterTransaction runs once the body has settled. */
export async function holdingUntilEnd<T>(body: () => Promise<T>): Promise<T> {
  if (held.getStore()?.open) return await body()
  const scope: Held = { open: true, queued: [] }
  let committed = false
  try {
    const result = await held.run(scope, body)
    committed = true
    return result
  } finally {
    scope.open = false
    for (const { fn, committedOnly } of scope.queued) if (committed || !committedOnly) fn()
  }
}
