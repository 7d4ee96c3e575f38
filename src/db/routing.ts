import type { Database, SQLQueryBindings, Statement } from 'bun:sqlite'
import { inTransactionScope, underWriterLock, writerBusy } from './transaction'

// One writer connection and a reader beside it, behind one Database-shaped object. Inside a
// transaction (inTransaction) every statement runs on the writer, so the transaction reads its
// own writes. Outside one, a read sees committed data only: while a transaction holds the writer
// (waiting on an await), reads run on the reader, so another caller never sees its uncommitted
// rows; while the writer is idle they run on it (the same view, a warm cache). Anything else
// outside a transaction (a single change, a PRAGMA) takes the writer lock first, so it never
// joins another caller's open transaction: at once when the writer is free, else its answer is a
// promise that resolves after that transaction (callers await).

const READ = /^\s*(select|with|explain)\b/i
const CHANGES = /\b(insert|update|delete|replace)\b/i

type Kind = 'read' | 'write'

/** A SELECT (a WITH that changes nothing) reads; anything else writes or sets. */
function kindOf(sql: string): Kind {
  if (!READ.test(sql)) return 'write'
  return /^\s*with\b/i.test(sql) && CHANGES.test(sql) ? 'write' : 'read'
}

interface Router {
  readonly writer: Database
  readonly reader: Database
  readonly routed: Database
  inTransaction(): boolean
  writerBusy(): boolean
}

/** A statement prepared on whichever connection runs it, once per connection. */
class RoutedStatement {
  private onWriter: Statement | undefined
  private onReader: Statement | undefined
  private readonly kind: Kind

  constructor(
    private readonly sql: string,
    private readonly router: Router,
    /** Drizzle maps the rows it gets synchronously: a change returning rows cannot wait. */
    private readonly rowsNow = false,
  ) {
    this.kind = kindOf(sql)
  }

  /**
   * The statement on the reader, or null when it runs on the writer: a read outside any
   * transaction goes to the reader only while some transaction holds the writer (the writer
   * then holds uncommitted rows); when the writer is idle its view is the committed one, and its
   * page cache is warm.
   */
  private onReaderNow(): Statement | null {
    if (this.kind !== 'read' || !this.router.writerBusy() || this.router.inTransaction()) return null
    this.onReader ??= this.router.reader.prepare(this.sql)
    return this.onReader
  }

  private writerStatement(): Statement {
    this.onWriter ??= this.router.writer.prepare(this.sql)
    return this.onWriter
  }

  /**
   * Runs `use` on the statement of the right connection. A change outside a transaction waits
   * for the writer lock (its caller awaits the answer), except a change whose rows drizzle maps
   * synchronously (`wait` false): it runs on the writer at once, inside whatever transaction
   * holds it then. Code that writes through drizzle outside a verb should use inTransaction.
   */
  private exec<T>(use: (s: Statement) => T, wait: boolean): T {
    const read = this.onReaderNow()
    if (read) return use(read)
    if (this.kind === 'read' || !wait || this.router.inTransaction()) return use(this.writerStatement())
    return underWriterLock(this.router.routed, () => use(this.writerStatement())) as T
  }

  run(...params: SQLQueryBindings[]) {
    return this.exec((s) => s.run(...params), true)
  }
  all(...params: SQLQueryBindings[]) {
    return this.exec((s) => s.all(...params), !this.rowsNow)
  }
  get(...params: SQLQueryBindings[]) {
    return this.exec((s) => s.get(...params), !this.rowsNow)
  }
  values(...params: SQLQueryBindings[]) {
    return this.exec((s) => s.values(...params), !this.rowsNow)
  }
  iterate(...params: SQLQueryBindings[]) {
    return (this.onReaderNow() ?? this.writerStatement()).iterate(...params)
  }
  get columnNames() {
    return (this.onReaderNow() ?? this.writerStatement()).columnNames
  }
  finalize() {
    this.onWriter?.finalize()
    this.onReader?.finalize()
  }
  toString() {
    return this.sql
  }
}

/**
 * The store's connection as the code sees it: `query`, `prepare`, `run` and `exec` route each
 * statement as above. Statements from `query` are cached by their text, like bun:sqlite's.
 */
export function routedConnection(writer: Database, reader: Database): Database {
  const cache = new Map<string, RoutedStatement>()
  const facade = {
    get filename() {
      return writer.filename
    },
    get inTransaction() {
      return writer.inTransaction
    },
    prepare(sql: string) {
      return new RoutedStatement(sql, router)
    },
    query(sql: string) {
      let s = cache.get(sql)
      if (!s) {
        s = new RoutedStatement(sql, router)
        cache.set(sql, s)
      }
      return s
    },
    run(sql: string, ...params: SQLQueryBindings[][]) {
      if (router.inTransaction()) return writer.run(sql, ...params)
      if (kindOf(sql) === 'read') return (writerBusy(routed) ? reader : writer).run(sql, ...params)
      return underWriterLock(routed, () => writer.run(sql, ...params))
    },
    exec(sql: string, ...params: SQLQueryBindings[][]) {
      return facade.run(sql, ...params)
    },
    close() {
      for (const s of cache.values()) s.finalize()
      reader.close()
      writer.close()
    },
  }
  const routed = facade as unknown as Database
  const router: Router = {
    writer,
    reader,
    routed,
    inTransaction: () => inTransactionScope(routed),
    writerBusy: () => writerBusy(routed),
  }
  drizzleClients.set(routed, {
    ...facade,
    prepare: (sql: string) => new RoutedStatement(sql, router, true),
  } as unknown as Database)
  return routed
}

const drizzleClients = new WeakMap<Database, Database>()

/** The same connection for drizzle, whose statements' rows are mapped as soon as they return. */
export function drizzleClientOf(routed: Database): Database {
  const client = drizzleClients.get(routed)
  if (!client) throw new Error('not a routed connection')
  return client
}
