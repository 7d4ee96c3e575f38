import { wallClock } from './zoned-time'

// ISO 8601 durations (`P2D`, `PT4H`, `PT30S`, `P1W`) and "the next HH:MM in a time zone": the
// two ways a journey `wait` says how long. Pure functions; the caller brings the clock.

const DURATION_RE = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,3})?)S)?)?$/

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
/** The longest wait a journey or sequence may have: a year (far past it a due time is no valid date). */
export const MAX_WAIT_MS = 365 * DAY

/**
 * Milliseconds of an ISO 8601 duration in weeks, days, hours, minutes and seconds, or null when
 * it is not one (years and months have no fixed length, so they are refused: use days).
 */
export function parseIsoDuration(value: string): number | null {
  const m = DURATION_RE.exec(value)
  if (!m || value === 'P' || value.endsWith('T')) return null
  const [, w, d, h, min, s] = m
  if ([w, d, h, min, s].every((x) => x === undefined)) return null
  return (
    Number(w ?? 0) * 7 * DAY +
    Number(d ?? 0) * DAY +
    Number(h ?? 0) * HOUR +
    Number(min ?? 0) * MINUTE +
    Math.round(Number(s ?? 0) * SECOND)
  )
}

/** `HH:MM` (24-hour) as minutes after midnight, or null. */
export function parseTimeOfDay(value: string): number | null {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(value)
  return m ? Number(m[1]) * 60 + Number(m[2]) : null
}

/** The instant whose wall clock in `timeZone` reads `wall` (a UTC-read local time). */
function instantOf(wall: number, timeZone: string): number {
  let guess = wall
  // Two corrections settle every offset change except inside a DST gap, where the later offset wins.
  for (let i = 0; i < 2; i++) guess = wall - (wallClock(guess, timeZone) - guess)
  return guess
}

/**
 * The first instant after `now` at which it is `minutes` after midnight in `timeZone` (an IANA
 * name; an unknown one is read as UTC).
 */
export function nextTimeOfDay(now: number, minutes: number, timeZone: string): number {
  let zone = timeZone
  try {
    wallClock(now, zone)
  } catch {
    zone = 'UTC'
  }
  const local = wallClock(now, zone)
  const midnight = local - (local % DAY)
  for (let day = 0; day < 3; day++) {
    const at = instantOf(midnight + day * DAY + minutes * MINUTE, zone)
    if (at > now) return at
  }
  return now + DAY
}
