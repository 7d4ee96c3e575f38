// The messages between the import's writer (process.ts) and its parse worker (parse-worker.ts).

export type Cell = string | number | null

/**
 * Rows per batch, and so per write transaction. Each transaction writes every page it touched:
 * FTS5 a segment (whose merges cost) and the unique email index most of its leaves, as emails
 * fall all over it. 10,000 rows a transaction imported ~20 % faster than 5,000, and 20,000 take
 * 13 % less writer CPU than 10,000 (test/bench/import-writer.ts). One holds the server's event
 * loop ~250 ms at 80k rows/s of writing. Memory: both threads collect after each batch
 * (process.ts, parse-worker.ts), which is what keeps 20,000 batches within the 300 MB a
 * million-row import may use.
 */
export const IMPORT_BATCH = 20_000

/**
 * Cells per row in a batch: line, problem (null when the row is good), email, first_name,
 * last_name, company, phone (E.164), status, timezone, custom_fields (JSON; null on a problem).
 */
export const ROW_CELLS = 10

export type ToParser =
  /** `skip`: data rows a crashed run already committed, read past unchecked. */
  | { type: 'start'; file: string; delimiter: string; ahead: number; skip: number }
  /** The writer took a batch: the worker may send one more. */
  | { type: 'more' }

export type FromParser =
  | { type: 'batch'; cells: Cell[] }
  | { type: 'end' }
  /** The file cannot be imported (no header, no email column, unreadable). */
  | { type: 'fail'; message: string }
