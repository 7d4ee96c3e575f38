import type { SQL } from 'drizzle-orm'
import { rawRows, rawRun } from '../../src/db/raw'
import type { TestApp } from './app'

// Tests' own statements, on either store, through the app's db (inside a transaction, in it).
// A count read back is CAST(… AS INTEGER): PostgreSQL's count(*) is a bigint, read as a string.

export const sqlRows = async <T>(t: TestApp, query: SQL): Promise<T[]> => await rawRows<T>(t.ctx.db, query)
export const sqlRow = async <T>(t: TestApp, query: SQL): Promise<T | undefined> =>
  (await rawRows<T>(t.ctx.db, query))[0]
export const sqlRun = async (t: TestApp, query: SQL): Promise<number> => await rawRun(t.ctx.db, query)
