import { AsyncLocalStorage } from 'node:async_hooks'
import { holdingSavepoint, holdingUntilEnd } from '../../lib/after-transaction'

// Transactions on PostgreSQL carried through async calls, as on SQLite: the code inside never
// names its transaction; it uses the store's `db`, which answers from the transaction the call
// runs in (AsyncLocalStorage), or from the pool outside one. A nested call becomes a savepoint.
//
// One transaction at a time per process, in arrival order: Herald's transactions were written
// for SQLite's single writer (read, decide, write), and running them one after another keeps
// that meaning here. Reads and single statements outside a transaction run on the pool beside it.

/** What drizzle's PostgreSQL database and transaction objects have in common here. */
export interface PgRunner {
  transaction<T>(fn: (tx: PgRunner) => Promise<T>): Promise<T>
}

interface Scope {
  readonly owner: object
  readonly tx: PgRunner
}

const scope = new AsyncLocalStorage<Scope>()

/** A FIFO queue of transactions: the next starts when the one before has ended. */
class TurnQueue {
  private tail: Promise<void> = Promise.resolve()

  run<T>(fn: () => Promise<T>): Promise<T> {
    const turn = this.tail.then(fn)
    this.tail = turn.then(
      () => undefined,
      () => undefined,
    )
    return turn
  }
}

export interface PgTransactions {
  /**
   * The pool's database, whatever transaction the caller is in: for statements prepared once and
   * run outside transactions (inside one, the caller builds its statement on the store's db).
   */
  readonly root: PgRunner
  /** Runs fn in a transaction (a savepoint inside one) and resolves with its result. */
  run<T>(fn: () => T | Promise<T>): Promise<T>
  /** The transaction the caller runs in, if it is one of this store's. */
  current(): PgRunner | undefined
}

export function pgTransactions(root: PgRunner): PgTransactions {
  const owner = {}
  const queue = new TurnQueue()
  const current = () => {
    const s = scope.getStore()
    return s?.owner === owner ? s.tx : undefined
  }
  return {
    root,
    current,
    run(fn) {
      const outer = current()
      if (outer)
        return holdingSavepoint(() =>
          outer.transaction((tx) => scope.run({ owner, tx }, async () => await fn())),
        )
      return holdingUntilEnd(owner, () =>
        queue.run(() => root.transaction((tx) => scope.run({ owner, tx }, async () => await fn()))),
      )
    },
  }
}

/**
 * The store's `db`: every property is read from the caller's transaction when it runs in one,
 * from the pool's database otherwise.
 */
export function transactionAware<D extends object>(root: D, transactions: PgTransactions): D {
  return new Proxy(root, {
    get(target, prop) {
      const from = (transactions.current() as D | undefined) ?? target
      const value = Reflect.get(from, prop, from)
      return typeof value === 'function' ? value.bind(from) : value
    },
  })
}
