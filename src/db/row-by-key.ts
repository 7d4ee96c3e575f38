import type { Database } from 'bun:sqlite'
import { eq, getTableColumns, getTableName, sql, type Table } from 'drizzle-orm'
import type { PgDatabase } from 'drizzle-orm/pg-core'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import { postgresTransactionsOf } from './postgres/handle'

// Column kinds drizzle hands back exactly as SQLite stores them (no mapFromDriverValue of their
// own): text (enums included), integer in number mode, real.
const AS_STORED = new Set(['SQLiteText', 'SQLiteInteger', 'SQLiteReal'])

/**
 * One row by its key, as drizzle's `select().from(table).where(eq(key, ?))` answers it (the same
 * members, in the same order, with the same values), straight from bun:sqlite: every column is
 * selected under its drizzle name, so no per-row mapping runs. For look-ups on the hot path of
 * every request (a client read costs ~0.9 µs less). Tables with a column drizzle converts
 * (JSON, boolean, timestamp modes) are refused when the statement is built.
 * On PostgreSQL (`sqlite` is the store's handle) drizzle's select, its SQL built once on the pool's
 * database; inside a transaction it is built on the transaction, which must see its own writes.
 */
export function rowByKeyStatement<T extends Table>(
  sqlite: Database,
  table: T,
  key: SQLiteColumn,
): (value: string | number) => Promise<T['$inferSelect'] | null> {
  const transactions = postgresTransactionsOf(sqlite)
  if (transactions) return pgRowByKey(transactions.root, transactions.current, table, key)
  const columns = Object.entries(getTableColumns(table)) as [string, SQLiteColumn][]
  for (const [name, column] of columns)
    if (!AS_STORED.has(column.columnType))
      throw new Error(`${getTableName(table)}.${name} (${column.columnType}) needs drizzle's mapping`)
  const list = columns.map(([name, column]) => `"${column.name}" AS "${name}"`).join(', ')
  const statement = sqlite.prepare<T['$inferSelect'], [string | number]>(
    `SELECT ${list} FROM "${getTableName(table)}" WHERE "${key.name}" = ?1`,
  )
  return async (value) => await statement.get(value)
}

type AnyPg = PgDatabase<never, never>

function pgRowByKey<T extends Table>(
  root: object,
  current: () => object | undefined,
  table: T,
  key: SQLiteColumn,
): (value: string | number) => Promise<T['$inferSelect'] | null> {
  // The tables are the pg-core twins on PostgreSQL; drizzle's types name the SQLite ones.
  const select = (db: object, value: unknown) =>
    (db as AnyPg)
      .select()
      .from(table as never)
      .where(eq(key as never, value))
      .limit(1)
  const prepared = select(root, sql.placeholder('key')).prepare(`row_by_key_${getTableName(table)}`)
  return async (value) => {
    const tx = current()
    const rows = (
      tx ? await select(tx, value) : await prepared.execute({ key: value })
    ) as T['$inferSelect'][]
    return rows[0] ?? null
  }
}
