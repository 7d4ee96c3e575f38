import { sql } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { DIALECT } from '../../db/dialect'
import { rawRows } from '../../db/raw'
import { iso } from '../../lib/time'
import { VERSION } from '../../version'

/** A cheap query proves the store answers, not just the process (on PostgreSQL, one pool connection). */
export async function health(ctx: AppContext) {
  if (DIALECT === 'postgres') await rawRows(ctx.db, sql`SELECT 1`)
  else await ctx.sqlite.query('SELECT 1').get()
  return { status: 'ok', version: VERSION, timestamp: iso(ctx.clock.now()) }
}
