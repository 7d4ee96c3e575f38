import { AsyncLocalStorage } from 'node:async_hooks'

// What must wait until the caller's transaction has ended: waking a worker, here or in another
// process, whose first read would otherwise run before the commit and find nothing (on
// PostgreSQL, reads outside a transaction run on other connections). A transaction opens a
// scope; a call inside it is held until the outermost one ends, committed or rolled back (a
// wake that finds nothing costs one pass).

interface Held {
  /** False once the transaction has ended: work it started and left running calls at once. */
  open: boolean
  readonly queued: (() => void)[]
}

const held = new AsyncLocalStorage<Held>()

/**
 * Runs fn now, or when the transaction the caller runs in has ended. fn must not throw: by then
 * the transaction has committed, and its caller would hear of an error instead.
 */
export function afterTransaction(fn: () => void): void {
  const scope = held.getStore()
  if (scope?.open) scope.queued.push(fn)
  else fn()
}

/** Runs a transaction's body; what it handed to afterTransaction runs once the body has settled. */
export async function holdingUntilEnd<T>(body: () => Promise<T>): Promise<T> {
  if (held.getStore()?.open) return await body()
  const scope: Held = { open: true, queued: [] }
  try {
    return await held.run(scope, body)
  } finally {
    scope.open = false
    for (const fn of scope.queued) fn()
  }
}
