import type { SQL } from 'drizzle-orm'
import type { Db } from './client'
import { DIALECT } from './dialect'

// Statements written as drizzle `sql` templates, run on either store: drizzle's SQLite database
// answers .all()/.run(), its PostgreSQL one .execute(). Inside a transaction they run in it (the
// store's db routes them). On PostgreSQL a raw bigint comes back as a string: give such columns
// `::double precision`, or Number() them.

interface PgExecute {
  execute(query: SQL): Promise<Record<string, unknown>[] & { count?: number }>
}

/** The rows a raw query gives. */
export async function rawRows<T>(db: Db, query: SQL): Promise<T[]> {
  if (DIALECT === 'postgres') return (await (db as unknown as PgExecute).execute(query)) as unknown as T[]
  return await db.all<T>(query)
}

/** Runs a raw write; resolves with the number of rows it changed. */
export async function rawRun(db: Db, query: SQL): Promise<number> {
  if (DIALECT === 'postgres') return (await (db as unknown as PgExecute).execute(query)).count ?? 0
  return ((await db.run(query)) as unknown as { changes: number }).changes
}

/** The number of rows an awaited drizzle write changed, on either store. */
export function changedRows(result: unknown): number {
  const r = result as { changes?: number; count?: number } | null
  return r?.changes ?? r?.count ?? 0
}
