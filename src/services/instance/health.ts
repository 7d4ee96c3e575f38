import type { AppContext } from '../../context'
import { iso } from '../../lib/time'
import { VERSION } from '../../version'

/** A cheap query proves the store answers, not just the process. */
export async function health(ctx: AppContext) {
  await ctx.sqlite.query('SELECT 1').get()
  return { status: 'ok', version: VERSION, timestamp: iso(ctx.clock.now()) }
}
