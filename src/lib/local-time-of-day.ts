import { parseTimeOfDay } from './duration'
import { DAY_MS } from './time'
import { localDate, offsetAt } from './zoned-time'

// "09:00 in Tokyo on that day" as an instant: a campaign's local-time delivery reads each
// recipient's hour in their own zone. Pure functions; the caller brings the clock.
// On a DST switch day the wall time may not exist (02:30 when clocks spring from 02:00 to 03:00):
// then it is the first instant after the gap (03:00). It may also exist twice (01:30 when clocks
// fall back): then it is the first occurrence, so nobody waits an extra hour for a repeat.

const SECOND = 1000

/** The zone's offset just before and just after `wall` (read on the UTC axis), a day either side. */
const offsetsAround = (wall: number, tz: string) => [offsetAt(wall - DAY_MS, tz), offsetAt(wall + DAY_MS, tz)]

/**
 * The instant whose wall clock in `tz` reads `wall` (a local date-time on the UTC axis): the
 * first occurrence in a fold, the first instant after a gap.
 */
export function instantOfLocal(wall: number, tz: string): number {
  const [before, after] = offsetsAround(wall, tz) as [number, number]
  // Each offset in effect around it proposes an instant; those whose wall clock agrees are real.
  const real = [wall - before, wall - after].filter((t) => t + offsetAt(t, tz) === wall)
  if (real.length > 0) return Math.min(...real)
  // A gap: the clocks jumped over `wall`. The switch lies between the two proposals; find it to
  // the second (offsets change on whole seconds, in practice on whole minutes).
  let lo = Math.min(wall - before, wall - after)
  let hi = Math.max(wall - before, wall - after)
  while (hi - lo > SECOND) {
    const mid = lo + Math.floor((hi - lo) / 2 / SECOND) * SECOND
    if (mid + offsetAt(mid, tz) >= wall) hi = mid
    else lo = mid
  }
  return hi
}

/** The instant it is `minutes` after midnight on the local day `day` (its midnight on the UTC axis). */
export const instantOnLocalDay = (day: number, minutes: number, tz: string) =>
  instantOfLocal(day + minutes * 60_000, tz)

/** The first instant at or after `from` at which it is `minutes` after midnight in `tz`. */
export function nextLocalTimeOfDay(from: number, minutes: number, tz: string): number {
  const today = localDate(from, tz)
  for (let day = 0; day < 3; day++) {
    const at = instantOnLocalDay(today + day * DAY_MS, minutes, tz)
    if (at >= from) return at
  }
  return from + DAY_MS
}

/** `HH:MM` as minutes after midnight; throws on anything else (inputs are checked before). */
export function minutesOf(hhmm: string): number {
  const m = parseTimeOfDay(hhmm)
  if (m === null) throw new RangeError(`not a time of day: ${hhmm}`)
  return m
}

const known = new Map<string, boolean>()

/** Whether Intl knows the zone (cached: a campaign asks for the same few zones many times). */
export function isKnownZone(tz: string): boolean {
  let ok = known.get(tz)
  if (ok === undefined) {
    try {
      offsetAt(0, tz)
      ok = true
    } catch {
      ok = false
    }
    known.set(tz, ok)
  }
  return ok
}
