import { nextTimeOfDay, parseTimeOfDay } from './duration'
import { DAY_MS } from './time'
import { wallClock } from './zoned-time'

// A sending window: weekdays and a time of day span in a time zone (a sequence's
// `sending_window`, read in the contact's zone). Pure functions; the caller brings the clock.

export interface SendingWindow {
  /** ISO weekdays, 1 Monday … 7 Sunday. */
  days: number[]
  /** `HH:MM`, inclusive. */
  start: string
  /** `HH:MM`, exclusive. */
  end: string
}

const zoneOr = (timeZone: string | null | undefined): string => {
  if (!timeZone) return 'UTC'
  try {
    wallClock(0, timeZone)
    return timeZone
  } catch {
    return 'UTC'
  }
}

/** ISO weekday (1 Monday … 7 Sunday) of a wall clock read as UTC. */
const weekday = (wall: number) => new Date(wall).getUTCDay() || 7

/**
 * `now` if it falls inside the window in `timeZone` (null or unknown: UTC), else the instant the
 * window next opens.
 */
export function nextWindowAt(
  now: number,
  window: SendingWindow,
  timeZone: string | null | undefined,
): number {
  const zone = zoneOr(timeZone)
  const start = parseTimeOfDay(window.start) ?? 0
  const end = parseTimeOfDay(window.end) ?? 24 * 60
  const wall = wallClock(now, zone)
  const minutes = Math.floor((wall % DAY_MS) / 60_000)
  if (window.days.includes(weekday(wall)) && minutes >= start && minutes < end) return now
  // The next start of day that is one of the window's days (at most a week and a day away).
  let at = now
  for (let i = 0; i < 9; i++) {
    at = nextTimeOfDay(at, start, zone)
    if (window.days.includes(weekday(wallClock(at, zone)))) return at
  }
  return at
}

/** The first instant of the next UTC day (the daily limit's count starts again). */
export const nextUtcDay = (now: number) => (Math.floor(now / DAY_MS) + 1) * DAY_MS

/** Days since 1970-01-01 in UTC. */
export const utcDay = (now: number) => Math.floor(now / DAY_MS)
