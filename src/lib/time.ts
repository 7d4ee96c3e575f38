export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000

/** The start (UTC midnight) of the day of `ms`. */
export const dayOf = (ms: number) => ms - (ms % DAY_MS)

// Recently formatted timestamps: a record read again and again (a client on every request, a
// campaign polled) formats the same few values each time. Bounded by dropping them all when full.
const ISO_CACHE_MAX = 4096
const isoCache = new Map<number, string>()

/** ISO 8601 UTC with milliseconds, the one timestamp format of the API. */
export function iso(ms: number): string {
  let text = isoCache.get(ms)
  if (text === undefined) {
    text = new Date(ms).toISOString()
    if (isoCache.size >= ISO_CACHE_MAX) isoCache.clear()
    isoCache.set(ms, text)
  }
  return text
}

export function isoOrNull(ms: number | null | undefined): string | null {
  return ms == null ? null : iso(ms)
}

/** Parses an ISO 8601 date-time; returns epoch ms or null when it is not one. */
export function parseIsoDateTime(value: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return null
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? null : ms
}

export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }
