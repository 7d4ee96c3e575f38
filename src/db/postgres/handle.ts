import type { Database } from 'bun:sqlite'
import type { PgTransactions } from './transaction'

// On PostgreSQL the context's `sqlite` connection is this handle. Transactions (inTransaction)
// find the store through it; anything else reached through it is a statement written in SQLite's
// own SQL that has no PostgreSQL form yet, and fails naming what was asked for.

const PG = Symbol('herald.postgres')

export class NotOnPostgresError extends Error {
  constructor(what: string) {
    super(`${what}: this part of Herald does not run on PostgreSQL yet (see docs/postgres.md)`)
    this.name = 'NotOnPostgresError'
  }
}

export function postgresHandle(transactions: PgTransactions): Database {
  return new Proxy(Object.create(null) as object, {
    get(_, prop) {
      if (prop === PG) return transactions
      // Not a thenable, and printable.
      if (prop === 'then' || typeof prop === 'symbol') return undefined
      if (prop === 'close') return () => {}
      throw new NotOnPostgresError(`the SQLite connection's ${String(prop)}()`)
    },
  }) as Database
}

/** The PostgreSQL store's transactions when `sqlite` is its handle. */
export function postgresTransactionsOf(sqlite: Database): PgTransactions | undefined {
  return (sqlite as unknown as Record<symbol, PgTransactions | undefined>)[PG]
}
