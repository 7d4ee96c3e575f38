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
  /** The database whose transaction this is. */
  readonly store: object
  /** A savepoint's enclosing scope: what the savepoint keeps goes there when it ends. */
  readonly parent?: Held
  /** A savepoint that rolled back: what its leftover work hands to afterCommit is dropped. */
  rolledBack?: boolean
}

const held = new AsyncLocalStorage<Held>()

function hold(fn: () => void, committedOnly: boolean): void {
  const scope = held.getStore()
  if (scope) holdIn(scope, fn, committedOnly)
  else fn()
}

function holdIn(scope: Held, fn: () => void, committedOnly: boolean): void {
  if (scope.open) scope.queued.push({ fn, committedOnly })
  // Work a savepoint left running belongs to the transaction around it, still open or not.
  else if (scope.parent) {
    if (!(scope.rolledBack && committedOnly)) holdIn(scope.parent, fn, committedOnly)
  } else fn()
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
 * rolls back, or when the savepoint it was handed in rolls back (its writes are gone even if the
 * transaction around it commits).
 */
export function afterCommit(fn: () => void): void {
  hold(fn, true)
}

/**
 * Runs a transaction's body; what it handed to afterTransaction runs once the body has settled.
 * `store` names the database: a transaction of another store inside it holds its own calls
 * until its own end (it commits or rolls back apart from this one).
 */
export async function holdingUntilEnd<T>(store: object, body: () => Promise<T>): Promise<T> {
  const outer = held.getStore()
  if (outer?.open && outer.store === store) return await body()
  const scope: Held = { open: true, queued: [], store }
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

/**
 * Runs a savepoint's body inside a transaction's scope. When it is released, what it was handed
 * waits for the enclosing transaction; when it rolls back, what waits for a commit is dropped
 * and the rest still waits for the enclosing transaction's end.
 */
export async function holdingSavepoint<T>(body: () => Promise<T>): Promise<T> {
  const parent = held.getStore()
  if (!parent?.open) return await body()
  const scope: Held = { open: true, queued: [], store: parent.store, parent }
  let released = false
  try {
    const result = await held.run(scope, body)
    released = true
    return result
  } finally {
    scope.open = false
    scope.rolledBack = !released
    for (const q of scope.queued) if (released || !q.committedOnly) parent.queued.push(q)
  }
}
