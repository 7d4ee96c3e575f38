import { type SQL, sql } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { boundedAll, ReadTimeout } from '../../db/bounded-read'
import { WITHIN_DEADLINE } from '../../db/deadline'
import { DIALECT } from '../../db/dialect'
import { contacts } from '../../db/schema'
import { invalidField } from '../../errors'
import { segmentCondition } from './records'
import type { RuleGroup } from './rules'

// Every count of a segment that answers a caller (create, update, the live estimate, the
// preview, a campaign's audience page) and the refresh job run here: on a read thread, off the
// event loop, within the configured time budget. Past it the caller gets a 422 on `rule_groups`
// that says what to simplify.

export interface SegmentRules {
  clientId: string
  match: 'all' | 'any'
  groups: RuleGroup[]
  now: number
}

const tooSlow = (ms: number) =>
  invalidField(
    'rule_groups',
    `counting the segment took longer than ${ms} ms; simplify its rules: fewer rules, eq or starts_with instead of contains or ends_with, fewer event rules with min_count`,
  )

/**
 * On PostgreSQL boundedAll runs the read under a statement_timeout in a transaction of its own on
 * a pool connection (a savepoint inside a caller's transaction), so a slow count never holds the
 * store's one write transaction: other writes go on beside it, as beside SQLite's read thread.
 */
async function bounded<T>(ctx: AppContext, query: SQL): Promise<T[]> {
  try {
    return await boundedAll<T>(ctx.db, query, ctx.config.segmentCountMs)
  } catch (err) {
    if (err instanceof ReadTimeout) throw tooSlow(err.budgetMs)
    throw err
  }
}

/** The condition with the deadline check first, so that SQLite calls it for every contact it reads. */
const boundedWhere = async (ctx: AppContext, s: SegmentRules, extra?: SQL) => {
  const where = await segmentCondition(ctx.db, s.clientId, s.match, s.groups, s.now)
  // PostgreSQL bounds the statement itself (a statement_timeout, see bounded()).
  if (DIALECT === 'postgres') return extra ? sql`${where} AND ${extra}` : where
  return extra ? sql`${WITHIN_DEADLINE} AND ${where} AND ${extra}` : sql`${WITHIN_DEADLINE} AND ${where}`
}

/** How many contacts the rules match now; 422 when the rules do not compile or the count is too slow. */
export async function countSegment(ctx: AppContext, s: SegmentRules): Promise<number> {
  const rows = await bounded<{ n: number }>(
    ctx,
    sql`SELECT count(*) AS n FROM ${contacts} WHERE ${await boundedWhere(ctx, s)}`,
  )
  // A bigint is text on PostgreSQL.
  return Number(rows[0]?.n ?? 0)
}

/** The ids of up to `limit` matching contacts, newest first, older than `before` when given. */
export async function matchingIds(
  ctx: AppContext,
  s: SegmentRules,
  limit: number,
  before: string | null,
): Promise<string[]> {
  const rows = await bounded<{ id: string }>(
    ctx,
    sql`SELECT ${contacts.id} AS id FROM ${contacts} WHERE ${await boundedWhere(ctx, s, before === null ? undefined : sql`${contacts.id} < ${before}`)} ORDER BY ${contacts.id} DESC LIMIT ${limit}`,
  )
  return rows.map((r) => r.id)
}
