import { DAY_MS, HOUR_MS } from './time'
// Local time in an IANA time zone, for analytics buckets: days, hours and ISO weeks whose
// boundaries are the zone's own (DST included), built from UTC quarter-hours. Every zone's
// offset is a multiple of 15 minutes and changes at a quarter-hour, so each local bucket is a
// whole run of quarters. Intl finds a zone's changes once per year (then cached); the quarters
// are labelled with arithmetic alone.

export const QUARTER = 900_000
const SAMPLE = 12 * HOUR_MS

export type Interval = 'hour' | 'day' | 'week'

const formatters = new Map<string, Intl.DateTimeFormat>()
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
    formatters.set(tz, f)
  }
  return f
}

/**
 * The wall-clock fields of instant `ms` in `tz`, read as if they were UTC (to the second). Throws
 * a RangeError for a zone Intl does not know.
 */
export function wallClock(ms: number, tz: string): number {
  const parts: Record<string, number> = {}
  for (const p of formatter(tz).formatToParts(ms)) if (p.type !== 'literal') parts[p.type] = Number(p.value)
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!)
}

/** The zone's offset from UTC at an instant, in ms (local = utc + offset). */
export function offsetAt(ms: number, tz: string): number {
  return wallClock(ms, tz) - Math.floor(ms / 1000) * 1000
}

/** A zone's offsets in one UTC year: where each starts (found to the quarter-hour). */
type Steps = { start: number; off: number }[]
const years = new Map<string, Steps>()
const YEARS_CACHED = 2000

function stepsOfYear(tz: string, year: number): Steps {
  const key = `${tz}|${year}`
  let steps = years.get(key)
  if (steps) return steps
  const first = Date.UTC(year, 0, 1)
  const end = Date.UTC(year + 1, 0, 1)
  steps = [{ start: first, off: offsetAt(first, tz) }]
  let t = first
  let off = steps[0]!.off
  while (t < end) {
    const next = Math.min(t + SAMPLE, end)
    const nextOff = offsetAt(next, tz)
    if (nextOff !== off) {
      // The first quarter with the new offset.
      let lo = t
      let hi = next
      while (hi - lo > QUARTER) {
        const mid = lo + Math.floor((hi - lo) / 2 / QUARTER) * QUARTER
        if (offsetAt(mid, tz) === off) lo = mid
        else hi = mid
      }
      off = offsetAt(hi, tz)
      steps.push({ start: hi, off })
      if (off !== nextOff) {
        // Two changes within one sample: look at the rest of it again.
        t = hi
        continue
      }
    }
    t = next
  }
  if (years.size >= YEARS_CACHED) years.clear()
  years.set(key, steps)
  return steps
}

/**
 * The offsets over a span, as a step function. A zone's changes are found once per UTC year
 * (Intl sampled every 12 hours, then bisected) and kept, so a request pays for arithmetic only.
 */
export function offsetsOver(tz: string, from: number, to: number): (ms: number) => number {
  if (tz === 'UTC' || tz === 'Etc/UTC') return () => 0
  const steps: Steps = []
  const firstYear = new Date(from - DAY_MS).getUTCFullYear()
  const lastYear = new Date(to + DAY_MS).getUTCFullYear()
  for (let y = firstYear; y <= lastYear; y++)
    for (const step of stepsOfYear(tz, y))
      if (steps.length === 0 || steps[steps.length - 1]!.off !== step.off) steps.push(step)
  steps[0] = { start: Number.NEGATIVE_INFINITY, off: steps[0]!.off }
  if (steps.length === 1) {
    const only = steps[0]!.off
    return () => only
  }
  return (ms) => {
    let i = steps.length - 1
    while (steps[i]!.start > ms) i--
    return steps[i]!.off
  }
}

/** Days since 1970-01-01 of a local wall time (ms on the UTC axis). */
const dayNumber = (wall: number) => Math.floor(wall / DAY_MS)
/** ISO weeks start on Monday; 1970-01-01 was a Thursday. */
const weekNumber = (wall: number) => Math.floor((dayNumber(wall) + 3) / 7)

/**
 * Which bucket an instant falls in. Hours are elapsed hours starting at the zone's local hour
 * boundaries (the offset's minutes: :30 in Kolkata), so the hour repeated when clocks fall back
 * is two buckets (a 25-hour day), and the hour skipped in spring none (23).
 */
const labelOf = (interval: Interval, q: number, wall: number) =>
  interval === 'hour'
    ? Math.floor((q + ((wall - q) % HOUR_MS)) / HOUR_MS)
    : interval === 'day'
      ? dayNumber(wall)
      : weekNumber(wall)

/** Local wall-clock text of a bucket start: `2026-03-08` for days and weeks, `2026-03-08T03:00` for hours. */
function localText(interval: Interval, wall: number): string {
  const s = new Date(wall).toISOString()
  return interval === 'hour' ? s.slice(0, 16) : s.slice(0, 10)
}

export interface Bucket {
  /** First instant (UTC ms) of the bucket. */
  start: number
  /** Its local wall-clock start, as text. */
  local: string
}

/**
 * The local buckets covering [from, to) (both quarter-aligned). The first bucket starts at
 * `from` even when that is inside a local hour, day or week.
 */
export function bucketsOf(interval: Interval, tz: string, from: number, to: number): Bucket[] {
  const off = offsetsOver(tz, from, to)
  const out: Bucket[] = []
  let last: number | null = null
  for (let q = from; q < to; q += QUARTER) {
    const wall = q + off(q)
    const label = labelOf(interval, q, wall)
    if (label !== last) {
      // A week's text is its Monday's date, even when the window starts later in the week.
      const startWall =
        interval === 'week'
          ? (weekNumber(wall) * 7 - 3) * DAY_MS
          : interval === 'day'
            ? dayNumber(wall) * DAY_MS
            : wall
      out.push({ start: q, local: localText(interval, interval === 'hour' ? wall : startWall) })
      last = label
    }
  }
  return out
}

/**
 * The first instant whose local wall time is at or after `wall` (a local date-time given on the
 * UTC axis): local midnight, or the end of a DST gap that swallowed it (America/Santiago skips
 * midnight). Quarter-aligned when `wall` is.
 */
export function instantOfWall(wall: number, tz: string): number {
  let t = wall - offsetAt(wall - offsetAt(wall, tz), tz)
  // In a fold (the hour that repeats) take the earlier instant; in a gap, the first one after.
  while (t - QUARTER + offsetAt(t - QUARTER, tz) >= wall) t -= QUARTER
  while (t + offsetAt(t, tz) < wall) t += QUARTER
  return t
}

/** The local calendar date (on the UTC axis, midnight) of an instant. */
export function localDate(ms: number, tz: string): number {
  return dayNumber(ms + offsetAt(ms, tz)) * DAY_MS
}
