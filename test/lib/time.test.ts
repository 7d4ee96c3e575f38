import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { iso, isoOrNull } from '../../src/lib/time'

// iso() keeps recently formatted values: whatever it remembers, it answers what
// new Date(ms).toISOString() answers.

describe('iso', () => {
  test('the same text as toISOString, asked once or again, across the cache being emptied', () => {
    const values = [0, -1, 1, 1_732_400_000_123, 8.64e15, -8.64e15, 253_402_300_799_999, -62_167_219_200_001]
    // More distinct values than the cache holds, twice over, so it is emptied while in use.
    for (let i = 0; i < 10_000; i++) values.push(1_700_000_000_000 + i * 997)
    for (let round = 0; round < 2; round++)
      for (const ms of values) expect(iso(ms)).toBe(new Date(ms).toISOString())
  })

  test('property: any time value gives toISOString’s text', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        expect(iso(ms)).toBe(new Date(ms).toISOString())
        expect(iso(ms)).toBe(new Date(ms).toISOString())
      }),
      { numRuns: 2000 },
    )
  })

  test('an invalid time still throws, every time (nothing is remembered for it)', () => {
    for (const bad of [Number.NaN, 8.64e15 + 1, Number.POSITIVE_INFINITY]) {
      expect(() => iso(bad)).toThrow(RangeError)
      expect(() => iso(bad)).toThrow(RangeError)
    }
  })

  test('isoOrNull: null and undefined are null', () => {
    expect(isoOrNull(null)).toBeNull()
    expect(isoOrNull(undefined)).toBeNull()
    expect(isoOrNull(5)).toBe('1970-01-01T00:00:00.005Z')
  })
})
