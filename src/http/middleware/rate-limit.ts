import type { ApiKeyTier } from '../../lib/enums'

// Per-key token buckets (DESIGN.md §5). In memory: a restart refills every bucket, which errs
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

export interface RateDecision {
  allowed: boolean
  headers: Record<string, string>
}

export function createRateLimiter() {
  const buckets = new Map<string, { tokens: number; at: number }>()
  return function take(keyId: string, tier: ApiKeyTier, now: number): RateDecision {
    if (tier === 'unlimited') return { allowed: true, headers: {} }
    const { perMinute, burst } = TIERS[tier]
    const perMs = perMinute / 60_000
    let bucket = buckets.get(keyId)
    if (!bucket) {
      bucket = { tokens: burst, at: now }
      buckets.set(keyId, bucket)
    }
    bucket.tokens = Math.min(burst, bucket.tokens + (now - bucket.at) * perMs)
    bucket.at = now
    const allowed = bucket.tokens >= 1
    if (allowed) bucket.tokens -= 1
    const headers: Record<string, string> = {
      'ratelimit-limit': String(burst),
      'ratelimit-remaining': String(Math.floor(bucket.tokens)),
      'ratelimit-reset': String(Math.ceil((burst - bucket.tokens) / perMs / 1000)),
    }
    if (!allowed) headers['retry-after'] = String(Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)))
    return { allowed, headers }
  }
}

export type RateLimiter = ReturnType<typeof createRateLimiter>
