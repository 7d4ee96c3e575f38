// The messages between the serving process (bounded-read.ts) and a read thread (read-thread.ts).

export interface ReadSetup {
  kind: 'setup'
  /** The data file: the thread opens its own read-only connection to it. */
  file: string
}

export interface ReadJob {
  kind: 'read'
  id: number
  sql: string
  params: unknown[]
  /** Milliseconds the statement may run; past them it stops itself (see read-thread.ts). */
  budgetMs: number
}

export type ToReadThread = ReadSetup | ReadJob

export type FromReadThread =
  | { kind: 'rows'; id: number; rows: unknown[] }
  | { kind: 'timeout'; id: number }
  | { kind: 'failed'; id: number; message: string }
