// The messages between the import's writer (process.ts) and its parse worker (parse-worker.ts).

export type Cell = string | number | null

/**
 * Rows per batch, and so per write transaction. FTS5 writes a segment per transaction, and its
 * merges cost: 10,000 rows a transaction import ~20 % faster than 5,000 (issue 15), and one holds
 * the server's event loop ~200 ms, as 5,000 did at the slower rate before.
 */
export const IMPORT_BATCH = 10_000

/**
 * Cells per row in a batch: line, problem (null when the row is good), email, first_name,
 * last_name, company, phone (E.164), status, timezone, custom_fields (JSON; null on a problem).
 */
export const ROW_CELLS = 10

export type ToParser =
  | { type: 'start'; file: string; delimiter: string; ahead: number }
  /** The writer took a batch: the worker may send one more. */
  | { type: 'more' }

export type FromParser =
  | { type: 'batch'; cells: Cell[] }
  | { type: 'end' }
  /** The file cannot be imported (no header, no email column, unreadable). */
  | { type: 'fail'; message: string }
