import { and, eq, like, lt, type SQL, sql } from 'drizzle-orm'
import type { Db } from './client'
import { DIALECT } from './dialect'
import { rateBuckets, sendWindows } from './schema'

// The statements behind limits that several processes on one database count together. Each
// is one upsert: the row's new values are computed from its old ones inside the statement, so
// two processes taking at once are serialised by the row, never both granted the last token.

const least = (a: SQL | number, b: SQL | number) =>
  DIALECT === 'postgres' ? sql`LEAST(${a}, ${b})` : sql`min(${a}, ${b})`
const greatest = (a: SQL | number, b: SQL | number) =>
  DIALECT === 'postgres' ? sql`GREATEST(${a}, ${b})` : sql`max(${a}, ${b})`
/** A fractional parameter: PostgreSQL would otherwise take its type from a bigint beside it. */
const real = (x: number) => sql`CAST(${x} AS DOUBLE PRECISION)`
/** Whole tokens of a non-negative amount (SQLite's CAST truncates, which is floor here). */
const whole = (x: SQL) => (DIALECT === 'postgres' ? sql`floor(${x})` : sql`CAST(${x} AS INTEGER)`)

export interface BucketRate {
  /** Tokens added per millisecond. */
  perMs: number
  /** Most tokens the bucket holds. */
  burst: number
}

/**
 * Takes up to `want` whole tokens from a shared bucket at `now` (after putting back `giveBack`
 * unspent ones); returns how many it granted and how many are left.
 */
export async function takeTokens(
  db: Db,
  key: string,
  want: number,
  giveBack: number,
  { perMs, burst }: BucketRate,
  now: number,
): Promise<{ granted: number; left: number }> {
  const refilled = least(
    burst,
    sql`${rateBuckets.tokens} + ${real(giveBack)} + ${greatest(0, sql`${now} - ${rateBuckets.at}`)} * ${real(perMs)}`,
  )
  const grant = least(real(want), whole(refilled))
  const first = Math.min(want, burst)
  const [row] = await db
    .insert(rateBuckets)
    .values({ key, tokens: burst - first, at: now, granted: first })
    .onConflictDoUpdate({
      target: rateBuckets.key,
      set: {
        granted: grant,
        tokens: sql`${refilled} - ${grant}`,
        at: greatest(now, sql`${rateBuckets.at}`),
      },
    })
    .returning({ granted: rateBuckets.granted, left: rateBuckets.tokens })
  return { granted: Number(row!.granted), left: Number(row!.left) }
}

/**
 * Counts one send in a shared window when it has room under `max`; `seed` is the count a new
 * window starts from (sends the store already holds for it). Returns whether it was counted and
 * the window's count after.
 */
export async function countInWindow(
  db: Db,
  key: string,
  start: number,
  max: number,
  seed: number,
): Promise<{ counted: boolean; count: number }> {
  const room = sql`CASE WHEN ${sendWindows.count} < ${max} THEN 1 ELSE 0 END`
  const first = seed < max ? 1 : 0
  const [row] = await db
    .insert(sendWindows)
    .values({ key, start, count: seed + first, granted: first })
    .onConflictDoUpdate({
      target: [sendWindows.key, sendWindows.start],
      set: { granted: room, count: sql`${sendWindows.count} + ${room}` },
    })
    .returning({ granted: sendWindows.granted, count: sendWindows.count })
  return { counted: Number(row!.granted) === 1, count: Number(row!.count) }
}

/** Takes back a send counted in a window (another limit of the same send refused it). */
export async function uncountInWindow(db: Db, key: string, start: number): Promise<void> {
  await db
    .update(sendWindows)
    .set({ count: sql`${sendWindows.count} - 1` })
    .where(and(eq(sendWindows.key, key), eq(sendWindows.start, start)))
}

/** How long after its start each kind of window is kept (its own length, and some). */
const KEEP_MS = { minute: 3_600_000, hour: 86_400_000, day: 2 * 86_400_000 } as const

/** Deletes windows over for a while, and buckets untouched for a day (full again long since). */
export async function purgeSharedLimits(db: Db, now: number): Promise<{ windows: number; buckets: number }> {
  let windows = 0
  for (const [kind, keep] of Object.entries(KEEP_MS))
    windows += (
      await db
        .delete(sendWindows)
        .where(and(like(sendWindows.key, `${kind}|%`), lt(sendWindows.start, now - keep)))
        .returning({ k: sendWindows.key })
    ).length
  const b = await db
    .delete(rateBuckets)
    .where(lt(rateBuckets.at, now - 86_400_000))
    .returning({ k: rateBuckets.key })
  return { windows, buckets: b.length }
}
