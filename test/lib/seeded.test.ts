import { describe, expect, test } from 'bun:test'
import { pickByWeight, unitOf } from '../../src/lib/seeded'

describe('seeded draws', () => {
  test('the same key draws the same number; numbers spread evenly over [0, 1)', () => {
    expect(unitOf('campaign:contact')).toBe(unitOf('campaign:contact'))
    expect(unitOf('campaign:contact')).not.toBe(unitOf('campaign:contact2'))
    const buckets = new Array(10).fill(0)
    for (let i = 0; i < 100_000; i++) {
      const u = unitOf(`c-${i}`)
      expect(u >= 0 && u < 1).toBe(true)
      buckets[Math.floor(u * 10)]++
    }
    // Each tenth holds 10,000 ± 3 %: far outside chance for an even hash (σ ≈ 95).
    for (const n of buckets) expect(Math.abs(n - 10_000)).toBeLessThan(300)
  })

  test('weights are shares of their sum; the edges fall on the right side', () => {
    expect(pickByWeight([1, 1], 0)).toBe(0)
    expect(pickByWeight([1, 1], 0.4999)).toBe(0)
    expect(pickByWeight([1, 1], 0.5)).toBe(1)
    expect(pickByWeight([1, 3], 0.26)).toBe(1)
    expect(pickByWeight([2, 0.5, 7.5], 0.999999)).toBe(2)
  })
})
