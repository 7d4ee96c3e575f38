import { expect, test } from 'bun:test'
import {
  instantOfLocal,
  instantOnLocalDay,
  minutesOf,
  nextLocalTimeOfDay,
} from '../../src/lib/local-time-of-day'

// "09:00 on day D in zone Z" over the DST switches of New York (second Sunday of March, first
// Sunday of November) and Berlin (last Sundays of March and October), and the days around them;
// a wall time the switch skips, and one it repeats.

const day = (d: string) => Date.parse(`${d}T00:00:00Z`)
const iso = (ms: number) => new Date(ms).toISOString()
const NINE = minutesOf('09:00')

const nineAm: [string, string, string][] = [
  ['America/New_York', '2026-03-07', '2026-03-07T14:00:00.000Z'],
  ['America/New_York', '2026-03-08', '2026-03-08T13:00:00.000Z'],
  ['America/New_York', '2026-03-09', '2026-03-09T13:00:00.000Z'],
  ['America/New_York', '2026-10-25', '2026-10-25T13:00:00.000Z'],
  ['America/New_York', '2026-10-31', '2026-10-31T13:00:00.000Z'],
  ['America/New_York', '2026-11-01', '2026-11-01T14:00:00.000Z'],
  ['America/New_York', '2026-11-02', '2026-11-02T14:00:00.000Z'],
  ['Europe/Berlin', '2026-03-28', '2026-03-28T08:00:00.000Z'],
  ['Europe/Berlin', '2026-03-29', '2026-03-29T07:00:00.000Z'],
  ['Europe/Berlin', '2026-03-30', '2026-03-30T07:00:00.000Z'],
  ['Europe/Berlin', '2026-10-24', '2026-10-24T07:00:00.000Z'],
  ['Europe/Berlin', '2026-10-25', '2026-10-25T08:00:00.000Z'],
  ['Europe/Berlin', '2026-10-26', '2026-10-26T08:00:00.000Z'],
]

for (const [zone, date, expected] of nineAm)
  test(`09:00 in ${zone} on ${date} is ${expected}`, () => {
    expect(iso(instantOnLocalDay(day(date), NINE, zone))).toBe(expected)
  })

test('a skipped wall time is the first instant after the gap (03:00 the new offset)', () => {
  // New York springs from 02:00 EST to 03:00 EDT; Berlin from 02:00 CET to 03:00 CEST.
  expect(iso(instantOnLocalDay(day('2026-03-08'), minutesOf('02:30'), 'America/New_York'))).toBe(
    '2026-03-08T07:00:00.000Z',
  )
  expect(iso(instantOnLocalDay(day('2026-03-29'), minutesOf('02:30'), 'Europe/Berlin'))).toBe(
    '2026-03-29T01:00:00.000Z',
  )
  // Not only quarter-hours: 02:07 is skipped as well.
  expect(iso(instantOnLocalDay(day('2026-03-29'), minutesOf('02:07'), 'Europe/Berlin'))).toBe(
    '2026-03-29T01:00:00.000Z',
  )
})

test('a repeated wall time is its first occurrence', () => {
  // New York's 01:30 on 2026-11-01 happens in EDT (05:30Z) and again in EST (06:30Z).
  expect(iso(instantOnLocalDay(day('2026-11-01'), minutesOf('01:30'), 'America/New_York'))).toBe(
    '2026-11-01T05:30:00.000Z',
  )
  // Berlin's 02:30 on 2026-10-25 happens in CEST (00:30Z) and again in CET (01:30Z).
  expect(iso(instantOnLocalDay(day('2026-10-25'), minutesOf('02:30'), 'Europe/Berlin'))).toBe(
    '2026-10-25T00:30:00.000Z',
  )
})

test('zones without DST, half-hour offsets and UTC', () => {
  expect(iso(instantOnLocalDay(day('2026-03-08'), NINE, 'Asia/Kolkata'))).toBe('2026-03-08T03:30:00.000Z')
  expect(iso(instantOnLocalDay(day('2026-03-08'), NINE, 'Asia/Kathmandu'))).toBe('2026-03-08T03:15:00.000Z')
  expect(iso(instantOnLocalDay(day('2026-03-08'), NINE, 'UTC'))).toBe('2026-03-08T09:00:00.000Z')
  expect(iso(instantOfLocal(Date.parse('2026-07-01T23:59:00Z'), 'Pacific/Kiritimati'))).toBe(
    '2026-07-01T09:59:00.000Z',
  )
})

test('the next occurrence: at or after the instant given, across the switch', () => {
  const ny = 'America/New_York'
  expect(iso(nextLocalTimeOfDay(Date.parse('2026-03-08T12:59:59Z'), NINE, ny))).toBe(
    '2026-03-08T13:00:00.000Z',
  )
  expect(iso(nextLocalTimeOfDay(Date.parse('2026-03-08T13:00:00Z'), NINE, ny))).toBe(
    '2026-03-08T13:00:00.000Z',
  )
  expect(iso(nextLocalTimeOfDay(Date.parse('2026-03-08T13:00:01Z'), NINE, ny))).toBe(
    '2026-03-09T13:00:00.000Z',
  )
  // Saturday 10:00 EST: the next 09:00 is Sunday's, already in EDT.
  expect(iso(nextLocalTimeOfDay(Date.parse('2026-03-07T15:00:00Z'), NINE, ny))).toBe(
    '2026-03-08T13:00:00.000Z',
  )
  // 23:00 UTC is already the next morning in Tokyo: its 09:00 is ten hours on.
  expect(iso(nextLocalTimeOfDay(Date.parse('2026-10-24T23:00:00Z'), NINE, 'Asia/Tokyo'))).toBe(
    '2026-10-25T00:00:00.000Z',
  )
})
