import type { Awaitable } from './awaitable'

// Token buckets: `burst` tokens, refilled at `perMinute`. One take per request (`cost` tokens for
// a request that carries several calls, all or none); the decision carries the RateLimit-*
// headers and, when refused, Retry-After (seconds) and the wait in ms.

export interface BucketLimit {
  perMinute: number
  burst: number
}

export interface RateDecision {
  allowed: boolean
  headers: Record<string, string>
  /** When refused: how long until the cost can be paid, in ms. */
  retryAfterMs?: number
}

/** Takes `cost` tokens from the bucket named `key`, or refuses. */
export type TakeTokens = (
  key: string,
  limit: BucketLimit,
  now: number,
  cost?: number,
) => Awaitable<RateDecision>

/** The decision for a bucket left with `tokens` (and, when refused, still short of `cost`). */
export function decision({ perMinute, burst }: BucketLimit, tokens: number, allowed: boolean, cost: number) {
  const perMs = perMinute / 60_000
  const left = Math.max(0, tokens)
  const headers: Record<string, string> = {
    'ratelimit-limit': String(burst),
    'ratelimit-remaining': String(Math.floor(left)),
    'ratelimit-reset': String(Math.ceil((burst - Math.min(burst, left)) / perMs / 1000)),
  }
  if (allowed) return { allowed, headers }
  // A cost over the burst can never be paid: the wait named is the one until the bucket is full.
  const retryAfterMs = Math.max(1, Math.ceil((Math.min(cost, burst) - left) / perMs))
  headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfterMs / 1000)))
  return { allowed, headers, retryAfterMs }
}

const SWEEP_AT = 10_000

/** Buckets in this process's memory: a restart refills every bucket, which errs for the caller. */
export function createBuckets(): (
  key: string,
  limit: BucketLimit,
  now: number,
  cost?: number,
) => RateDecision {
  const buckets = new Map<string, { tokens: number; at: number; fullAt: number }>()
  let swept = Number.NEGATIVE_INFINITY
  return function take(key, limit, now, cost = 1) {
    const { perMinute, burst } = limit
    const perMs = perMinute / 60_000
    // Keyed by IP the map could grow with every address ever seen: a bucket that has refilled
    // is the same as none, so those are dropped once the map gets large.
    // At most once a second, so a flood of new addresses does not make every request a sweep.
    if (buckets.size >= SWEEP_AT && now - swept >= 1000) {
      swept = now
      for (const [k, b] of buckets) if (b.fullAt <= now) buckets.delete(k)
    }
    let bucket = buckets.get(key)
    if (!bucket) {
      bucket = { tokens: burst, at: now, fullAt: now }
      buckets.set(key, bucket)
    }
    // A clock that steps back (NTP, a test's clock) refills nothing rather than draining the bucket.
    bucket.tokens = Math.min(burst, bucket.tokens + Math.max(0, now - bucket.at) * perMs)
    bucket.at = Math.max(now, bucket.at)
    const allowed = bucket.tokens >= cost
    if (allowed) bucket.tokens -= cost
    bucket.fullAt = now + (burst - bucket.tokens) / perMs
    return decision(limit, bucket.tokens, allowed, cost)
  }
}
