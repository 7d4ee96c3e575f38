import { and, count, desc, getTableName, lt, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { invalidField } from '../errors'
import { decodeCursor, encodeCursor } from '../lib/cursor'
import type { Db } from './client'

/**
 * The position a page cursor names, or null without one. A cursor this server did not issue for
 * `collection` (or whose position is not of `shape`) is one 422 on `cursor`, whatever the list.
 */
export function cursorPosition(
  secret: Uint8Array,
  cursor: string | undefined,
  collection: string,
  shape?: RegExp,
): string | null {
  if (cursor === undefined) return null
  const position = decodeCursor(secret, cursor, collection)
  if (position === null || (shape && !shape.test(position)))
    throw invalidField('cursor', 'is not a cursor issued by this server')
  return position
}

/** A cursor whose position is a row number (`seq`), or null without one. */
export function cursorSeq(secret: Uint8Array, cursor: string | undefined, collection: string): number | null {
  const position = cursorPosition(secret, cursor, collection, /^\d+$/)
  return position === null ? null : Number(position)
}

export interface Pagination {
  total: number
  limit: number
  has_more: boolean
  next_cursor: string | null
}

export interface Page<T> {
  data: T[]
  pagination: Pagination
}

export interface PageRequest {
  limit?: number
  cursor?: string
}

export const DEFAULT_LIMIT = 50

/**
 * Keyset pagination over a table whose primary key property is `id`, newest first: ids are UUIDv7, so `id < last` is "older than the last row".
 * `total` counts the whole filtered collection.
 */
export function paginate<T extends SQLiteTable, R>(
  db: Db,
  secret: Uint8Array,
  table: T,
  idColumn: SQLiteColumn,
  where: SQL | undefined,
  request: PageRequest,
  present: (row: T['$inferSelect']) => R,
  /** A total the caller already knows exactly (a maintained counter), instead of count(*). */
  knownTotal?: number,
): Page<R> {
  const limit = request.limit ?? DEFAULT_LIMIT
  const collection = getTableName(table)
  const after = cursorPosition(secret, request.cursor, collection)
  const rows = db
    .select()
    .from(table as SQLiteTable)
    .where(and(where, after === null ? undefined : lt(idColumn, after)))
    .orderBy(desc(idColumn))
    .limit(limit + 1)
    .all() as T['$inferSelect'][]
  const total =
    knownTotal ??
    db
      .select({ n: count() })
      .from(table as SQLiteTable)
      .where(where)
      .get()?.n ??
    0
  const hasMore = rows.length > limit
  const pageRows = hasMore ? rows.slice(0, limit) : rows
  const last = pageRows.at(-1) as { id: string } | undefined
  return {
    data: pageRows.map(present),
    pagination: {
      total,
      limit,
      has_more: hasMore,
      next_cursor: hasMore && last ? encodeCursor(secret, last.id, collection) : null,
    },
  }
}
