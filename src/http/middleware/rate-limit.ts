import type { ApiKeyTier } from '../../lib/enums'
import { addressGroup } from '../../lib/ip-address'

// Per-key token buckets. In memory: a restart refills every bucket, which errs
// on the side of the caller and costs nothing per request.

interface TierLimit {
  perMinute: number
  burst: number
}

export const TIERS: Record<Exclude<ApiKeyTier, 'unlimited'>, TierLimit> = {
  standard: { perMinute: 600, burst: 100 },
  growth: { perMinute: 3000, burst: 500 },
  scale: { perMinute: 12000, burst: 2000 },
}

const SWEEP_AT = 10_000

export interface RateDecision {
  allowed: boolean
  headers: Record<string, string>
}

/**
 * Token buckets by key: `burst` tokens, refilled at `perMinute`. One take per request (`cost`
 * tokens for a request that carries several calls, all or none); the decision carries the
 * RateLimit-* headers and, when refused, Retry-After (seconds).
 */
export function createBuckets() {
  const buckets = new Map<string, { tokens: number; at: number; fullAt: number }>()
  let swept = Number.NEGATIVE_INFINITY
  return function take(key: string, { perMinute, burst }: TierLimit, now: number, cost = 1): RateDecision {
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
    const headers: Record<string, string> = {
      'ratelimit-limit': String(burst),
      'ratelimit-remaining': String(Math.floor(bucket.tokens)),
      'ratelimit-reset': String(Math.ceil((burst - bucket.tokens) / perMs / 1000)),
    }
    // A cost over the burst can never be paid: the wait named is the one until the bucket is full.
    const wanted = Math.min(cost, burst)
    if (!allowed)
      headers['retry-after'] = String(Math.max(1, Math.ceil((wanted - bucket.tokens) / perMs / 1000)))
    return { allowed, headers }
  }
}

export function createRateLimiter() {
  const take = createBuckets()
  return function takeForKey(keyId: string, tier: ApiKeyTier, now: number, cost = 1): RateDecision {
    if (tier === 'unlimited') return { allowed: true, headers: {} }
    return take(keyId, TIERS[tier], now, cost)
  }
}

/**
 * Unauthenticated endpoints get their own bucket per client IP, `perMinute` requests a minute
 * with the same burst (20/min: the 21st sign-in within a minute from one IP waits). An IPv6
 * client counts by its /64, which it can otherwise walk through one address per request.
 */
export function createIpLimiter(perMinute: number) {
  const take = createBuckets()
  const limit = { perMinute, burst: perMinute }
  return (ip: string, now: number): RateDecision => take(addressGroup(ip), limit, now)
}

export type RateLimiter = ReturnType<typeof createRateLimiter>

/**
 * Like createIpLimiter, one bucket per client IP and `key` together (a public form: each form
 * has its own allowance, so one busy page does not lock an address out of another).
 */
export function createKeyedIpLimiter(perMinute: number) {
  const take = createBuckets()
  const limit = { perMinute, burst: perMinute }
  return (ip: string, key: string, now: number): RateDecision =>
    take(`${addressGroup(ip)}|${key}`, limit, now)
}
