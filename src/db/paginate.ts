import { and, count, desc, getTableName, lt, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { invalidField } from '../errors'
import { encodeCursor, readCursor } from '../lib/cursor'
import { mapInOrder } from '../lib/in-order'
import type { Db } from './client'

/**
 * The position a page cursor names, or null without one. A cursor this server did not issue for
 * `collection` (or whose position is not of `shape`) is one 422 on `cursor`, whatever the list;
 * so is a cursor issued for another `query` (the page request's filters: a cursor of one search
 * would otherwise continue another from a position in the wrong results).
 */
export function cursorPosition(
  secret: Uint8Array,
  cursor: string | undefined,
  collection: string,
  shape?: RegExp,
  query?: object,
): string | null {
  if (cursor === undefined) return null
  const reading = readCursor(secret, cursor, collection, query)
  if ('refused' in reading && reading.refused === 'other_query')
    throw invalidField(
      'cursor',
      'was issued for another query: send it with the same filters as the request that returned it, or start over without a cursor',
    )
  if ('refused' in reading || (shape && !shape.test(reading.position)))
    throw invalidField('cursor', 'is not a cursor this server issued for this list')
  return reading.position
}

/** A cursor whose position is a row number (`seq`), or null without one. */
export function cursorSeq(
  secret: Uint8Array,
  cursor: string | undefined,
  collection: string,
  query?: object,
): number | null {
  const position = cursorPosition(secret, cursor, collection, /^\d+$/, query)
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
export async function paginate<T extends SQLiteTable, R>(
  db: Db,
  secret: Uint8Array,
  table: T,
  idColumn: SQLiteColumn,
  where: SQL | undefined,
  request: PageRequest,
  present: (row: T['$inferSelect']) => R | Promise<R>,
  /** A total the caller already knows exactly (a maintained counter), instead of count(*). */
  knownTotal?: number,
): Promise<Page<R>> {
  const limit = request.limit ?? DEFAULT_LIMIT
  const collection = getTableName(table)
  // The request's other members are its filters: its cursors page this query only.
  const after = cursorPosition(secret, request.cursor, collection, undefined, request)
  const rows = (await db
    .select()
    .from(table as SQLiteTable)
    .where(and(where, after === null ? undefined : lt(idColumn, after)))
    .orderBy(desc(idColumn))
    .limit(limit + 1)) as T['$inferSelect'][]
  const total =
    knownTotal ??
    (
      await db
        .select({ n: count() })
        .from(table as SQLiteTable)
        .where(where)
        .limit(1)
    )[0]?.n ??
    0
  const page = pageFrom(secret, rows, limit, {
    collection,
    position: (row) => (row as { id: string }).id,
    present: (row) => row,
    total,
    query: request,
  })
  return { ...page, data: await mapInOrder(page.data, (row) => present(row)) }
}

interface PageShape<Row, R> {
  /** Names the list in its cursors (a cursor of one list is refused by another). */
  collection: string
  /** Where the next page starts, after this row. */
  position: (row: Row) => string
  present: (row: Row) => R
  total?: number
  /** The page request (its filters) the cursor is bound to: read it back with the same. */
  query?: object
}

/**
 * The page of a keyset read that asked for `limit + 1` rows in its order: the first `limit`
 * presented, and a cursor at the last one's position when the extra row says there is more.
 * Without `total` (a timeline that does not count) the pagination has none.
 */
export function pageFrom<Row, R>(
  secret: Uint8Array,
  rows: readonly Row[],
  limit: number,
  o: PageShape<Row, R> & { total: number },
): Page<R>
export function pageFrom<Row, R>(
  secret: Uint8Array,
  rows: readonly Row[],
  limit: number,
  o: PageShape<Row, R>,
): { data: R[]; pagination: Omit<Pagination, 'total'> }
export function pageFrom<Row, R>(
  secret: Uint8Array,
  rows: readonly Row[],
  limit: number,
  o: PageShape<Row, R>,
) {
  const hasMore = rows.length > limit
  const pageRows = hasMore ? rows.slice(0, limit) : rows
  const last = pageRows.at(-1)
  return {
    data: pageRows.map(o.present),
    pagination: {
      ...(o.total === undefined ? {} : { total: o.total }),
      limit,
      has_more: hasMore,
      next_cursor:
        hasMore && last !== undefined ? encodeCursor(secret, o.position(last), o.collection, o.query) : null,
    },
  }
}
