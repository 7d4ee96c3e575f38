import { expect, test } from 'bun:test'
import { bucketsOf, instantOfWall, offsetAt } from '../../src/lib/zoned-time'

// Local buckets in zones whose rules are unusual: every boundary must be a quarter-hour of UTC
// and each local day, hour or week exactly as the zone counts it.

const at = (s: string) => Date.parse(s)
const DAY = 86_400_000

test('Kathmandu (+05:45): hours start at :15 UTC, days at 18:15 UTC', () => {
  const from = instantOfWall(at('2026-05-10T00:00:00Z'), 'Asia/Kathmandu')
  expect(new Date(from).toISOString()).toBe('2026-05-09T18:15:00.000Z')
  const hours = bucketsOf('hour', 'Asia/Kathmandu', from, from + DAY)
  expect(hours).toHaveLength(24)
  expect(hours[1]).toEqual({ start: at('2026-05-09T19:15:00Z'), local: '2026-05-10T01:00' })
})

test('Lord Howe: a 30-minute DST change makes a 23.5-hour day', () => {
  // Clocks go from 02:00 (+10:30) to 02:30 (+11:00) on 2026-10-04.
  expect(offsetAt(at('2026-10-03T12:00:00Z'), 'Australia/Lord_Howe')).toBe(10.5 * 3_600_000)
  expect(offsetAt(at('2026-10-04T12:00:00Z'), 'Australia/Lord_Howe')).toBe(11 * 3_600_000)
  const from = instantOfWall(at('2026-10-04T00:00:00Z'), 'Australia/Lord_Howe')
  const to = instantOfWall(at('2026-10-05T00:00:00Z'), 'Australia/Lord_Howe')
  expect((to - from) / 3_600_000).toBe(23.5)
  expect(bucketsOf('day', 'Australia/Lord_Howe', from, to)).toEqual([{ start: from, local: '2026-10-04' }])
})

test('Santiago skips midnight: the day starts at 01:00 local', () => {
  // Chile moves from -04 to -03 at 24:00 on the first Saturday of September (2026-09-06).
  const start = instantOfWall(at('2026-09-06T00:00:00Z'), 'America/Santiago')
  expect(new Date(start).toISOString()).toBe('2026-09-06T04:00:00.000Z')
  expect(offsetAt(start, 'America/Santiago')).toBe(-3 * 3_600_000)
})

test('weeks are ISO weeks (Monday) in the zone', () => {
  const from = instantOfWall(at('2026-11-18T00:00:00Z'), 'Europe/Paris')
  const to = instantOfWall(at('2026-12-01T00:00:00Z'), 'Europe/Paris')
  expect(bucketsOf('week', 'Europe/Paris', from, to)).toEqual([
    { start: at('2026-11-17T23:00:00Z'), local: '2026-11-16' },
    { start: at('2026-11-22T23:00:00Z'), local: '2026-11-23' },
    { start: at('2026-11-29T23:00:00Z'), local: '2026-11-30' },
  ])
})
