import type { AppContext } from '../context'
import { createBuckets, decision, type TakeTokens } from '../lib/token-buckets'
import type { Db } from './client'
import { DIALECT } from './dialect'
import { takeTokens } from './shared-limits'

// Buckets several processes count together, kept in the database. A process takes a few tokens
// at a time (a twentieth of the burst) and spends them itself, so most requests cost no round
// trip; tokens it has not spent within a second go back with its next take. Tokens leave the
// bucket before they are spent, so the processes together never spend more than it gave; what
// they hold unspent (a tenth of the burst at most with two) can make another refuse early, or be
// spent just after the bucket refilled.
// After a refusal the process refuses on its own until the bucket could pay again, so a flood
// of refused requests does not become a flood of writes.

/** A process takes at most this share of a bucket's burst at once. */
const CHUNK_SHARE = 20
/** Tokens held longer than this go back to the bucket with the next take. */
const HOLD_MS = 1_000
const SWEEP_AT = 10_000

interface Held {
  tokens: number
  until: number
  /** What the bucket had left at the last take. */
  left: number
  /** Until when a cost of at least `refusedCost` is refused here without asking the bucket. */
  refusedUntil: number
  refusedCost: number
}

export function createSharedBuckets(db: Db, name: string): TakeTokens {
  const held = new Map<string, Held>()
  let swept = Number.NEGATIVE_INFINITY
  return async function take(key, limit, now, cost = 1) {
    const { perMinute, burst } = limit
    // Keyed by address the map could grow without end: entries past their hold are dropped
    // (their few tokens are not put back), at most once a second.
    if (held.size >= SWEEP_AT && now - swept >= 1000) {
      swept = now
      for (const [k, h] of held) if (h.until <= now && h.refusedUntil <= now) held.delete(k)
    }
    let h = held.get(key)
    if (!h) {
      h = { tokens: 0, until: 0, left: burst, refusedUntil: 0, refusedCost: 0 }
      held.set(key, h)
    }
    const fresh = h.until > now
    if (fresh && h.tokens >= cost) {
      h.tokens -= cost
      return decision(limit, h.tokens + h.left, true, cost)
    }
    // A cost over the burst can never be paid: refused without taking what others could spend.
    if (cost > burst) return decision(limit, h.tokens + h.left, false, cost)
    if (h.refusedUntil > now && cost >= h.refusedCost) return decision(limit, h.tokens + h.left, false, cost)
    // Out of the map while the take runs: a request meanwhile goes to the bucket on its own.
    const keep = fresh ? h.tokens : 0
    const giveBack = fresh ? 0 : h.tokens
    h.tokens = 0
    const want = Math.min(burst, Math.max(cost - keep, Math.floor(burst / CHUNK_SHARE), 1))
    const got = await takeTokens(
      db,
      `${name}:${key}`,
      want,
      giveBack,
      { perMs: perMinute / 60_000, burst },
      now,
    )
    h.tokens += keep + got.granted
    h.until = now + HOLD_MS
    h.left = got.left
    if (h.tokens >= cost) {
      h.tokens -= cost
      return decision(limit, h.tokens + h.left, true, cost)
    }
    const refused = decision(limit, h.tokens + h.left, false, cost)
    h.refusedUntil = now + (refused.retryAfterMs ?? 0)
    h.refusedCost = cost
    return refused
  }
}

/**
 * The buckets of one limiter (`name` keeps its keys apart from other limiters'): in memory on
 * SQLite, where one process serves a database; in the database on PostgreSQL, where several
 * processes may serve it and count together.
 */
export function bucketsFor(app: Pick<AppContext, 'db'>, name: string): TakeTokens {
  return DIALECT === 'postgres' ? createSharedBuckets(app.db, name) : createBuckets()
}
