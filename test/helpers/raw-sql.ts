import type { SQL } from 'drizzle-orm'
import { rawRows, rawRun } from '../../src/db/raw'
import type { TestApp } from './app'

// Tests' own raw reads and writes, on either store, through the app's db (inside a transaction,
// in it). A bigint column read raw comes back as a string on PostgreSQL: the queries CAST what
// they compare as numbers (CAST … AS DOUBLE PRECISION and AS INTEGER read the same on both), and
// JSON columns are parsed by jsonOf.

/** All rows of a raw query. */
export const rowsOf = async <T>(t: Pick<TestApp, 'ctx'>, query: SQL): Promise<T[]> =>
  await rawRows<T>(t.ctx.db, query)

/** The first row of a raw query, or null. */
export const rowOf = async <T>(t: Pick<TestApp, 'ctx'>, query: SQL): Promise<T | null> =>
  (await rawRows<T>(t.ctx.db, query))[0] ?? null

/** Runs a raw write. */
export const runSql = async (t: Pick<TestApp, 'ctx'>, query: SQL): Promise<number> =>
  await rawRun(t.ctx.db, query)

/** A JSON column's value: text on SQLite, already parsed (jsonb) on PostgreSQL. */
export const jsonOf = <T = unknown>(value: unknown): T =>
  (typeof value === 'string' ? JSON.parse(value) : value) as T
