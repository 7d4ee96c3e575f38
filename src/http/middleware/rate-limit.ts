import type { Awaitable } from '../../lib/awaitable'
import type { ApiKeyTier } from '../../lib/enums'
import { addressGroup } from '../../lib/ip-address'
import type { BucketLimit, RateDecision, TakeTokens } from '../../lib/token-buckets'

// The limits on requests: per API key by its tier, per client address on unauthenticated
// endpoints. The buckets are given by the caller (db/shared-buckets.ts): in memory on SQLite, shared
// by the processes on PostgreSQL.

export const TIERS: Record<Exclude<ApiKeyTier, 'unlimited'>, BucketLimit> = {
  standard: { perMinute: 600, burst: 100 },
  growth: { perMinute: 3000, burst: 500 },
  scale: { perMinute: 12000, burst: 2000 },
}

export type { RateDecision }

export function createRateLimiter(take: TakeTokens) {
  return function takeForKey(
    keyId: string,
    tier: ApiKeyTier,
    now: number,
    cost = 1,
  ): Awaitable<RateDecision> {
    if (tier === 'unlimited') return { allowed: true, headers: {} }
    return take(keyId, TIERS[tier], now, cost)
  }
}

/**
 * Unauthenticated endpoints get their own bucket per client IP, `perMinute` requests a minute
 * with the same burst (20/min: the 21st sign-in within a minute from one IP waits). An IPv6
 * client counts by its /64, which it can otherwise walk through one address per request.
 */
export function createIpLimiter(perMinute: number, take: TakeTokens) {
  const limit = { perMinute, burst: perMinute }
  return (ip: string, now: number): Awaitable<RateDecision> => take(addressGroup(ip), limit, now)
}

export type RateLimiter = ReturnType<typeof createRateLimiter>

/**
 * Like createIpLimiter, one bucket per client IP and `key` together (a public form: each form
 * has its own allowance, so one busy page does not lock an address out of another).
 */
export function createKeyedIpLimiter(perMinute: number, take: TakeTokens) {
  const limit = { perMinute, burst: perMinute }
  return (ip: string, key: string, now: number): Awaitable<RateDecision> =>
    take(`${addressGroup(ip)}|${key}`, limit, now)
}
