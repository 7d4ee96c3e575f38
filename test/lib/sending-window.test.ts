import { describe, expect, test } from 'bun:test'
import { nextUtcDay, nextWindowAt, utcDay } from '../../src/lib/sending-window'

// 2026-11-23 is a Monday.
const at = (s: string) => Date.parse(s)
const weekdays = { days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' }

describe('nextWindowAt', () => {
  test('inside the window: now', () => {
    expect(nextWindowAt(at('2026-11-23T10:00:00Z'), weekdays, null)).toBe(at('2026-11-23T10:00:00Z'))
    expect(nextWindowAt(at('2026-11-23T09:00:00Z'), weekdays, 'UTC')).toBe(at('2026-11-23T09:00:00Z'))
  })
  test('before the start: today at the start; at the end (exclusive): the next day', () => {
    expect(nextWindowAt(at('2026-11-23T07:30:00Z'), weekdays, null)).toBe(at('2026-11-23T09:00:00Z'))
    expect(nextWindowAt(at('2026-11-23T17:00:00Z'), weekdays, null)).toBe(at('2026-11-24T09:00:00Z'))
  })
  test('Friday evening waits for Monday', () => {
    expect(nextWindowAt(at('2026-11-27T18:00:00Z'), weekdays, null)).toBe(at('2026-11-30T09:00:00Z'))
    expect(nextWindowAt(at('2026-11-28T12:00:00Z'), weekdays, null)).toBe(at('2026-11-30T09:00:00Z'))
  })
  test("in the contact's time zone (DST-aware), unknown zones read as UTC", () => {
    // 10:00 UTC is 05:00 in New York (EST, UTC-5): opens at 09:00 EST = 14:00 UTC.
    expect(nextWindowAt(at('2026-11-23T10:00:00Z'), weekdays, 'America/New_York')).toBe(
      at('2026-11-23T14:00:00Z'),
    )
    // 2026-07-06 is a Monday, EDT (UTC-4).
    expect(nextWindowAt(at('2026-07-06T10:00:00Z'), weekdays, 'America/New_York')).toBe(
      at('2026-07-06T13:00:00Z'),
    )
    // Monday 23:30 UTC is Tuesday 08:30 in Tokyo: opens at 09:00 JST = 00:00 UTC.
    expect(nextWindowAt(at('2026-11-23T23:30:00Z'), weekdays, 'Asia/Tokyo')).toBe(at('2026-11-24T00:00:00Z'))
    expect(nextWindowAt(at('2026-11-23T07:00:00Z'), weekdays, 'Mars/Olympus')).toBe(
      at('2026-11-23T09:00:00Z'),
    )
  })
  test('one day a week', () => {
    expect(nextWindowAt(at('2026-11-23T10:00:00Z'), { days: [7], start: '00:00', end: '23:59' }, null)).toBe(
      at('2026-11-29T00:00:00Z'),
    )
  })
})

test('utcDay and nextUtcDay', () => {
  expect(nextUtcDay(at('2026-11-23T23:59:59Z'))).toBe(at('2026-11-24T00:00:00Z'))
  expect(nextUtcDay(at('2026-11-24T00:00:00Z'))).toBe(at('2026-11-25T00:00:00Z'))
  expect(utcDay(at('2026-11-24T00:00:00Z'))).toBe(utcDay(at('2026-11-24T23:59:59Z')))
})
