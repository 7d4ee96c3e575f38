import { describe, expect, test } from 'bun:test'
import { createFailureHolds, pickDue } from '../../src/lib/due-picker'

describe('pickDue', () => {
  const due: Record<string, number | null> = { a: 50, b: 20, c: 300, d: null }
  const nextDue = (id: string) => due[id] ?? null

  test('the flow whose oldest due run is the oldest goes first; the next due time is of the rest', async () => {
    expect(await pickDue(['a', 'b', 'c', 'd'], nextDue, 100, createFailureHolds())).toEqual({
      pick: 'b',
      nextAt: 300,
    })
  })

  test('nothing due: no pick, and when the next one is', async () => {
    expect(await pickDue(['c', 'd'], nextDue, 100, createFailureHolds())).toEqual({ pick: null, nextAt: 300 })
    expect(await pickDue(['d'], nextDue, 100, createFailureHolds())).toEqual({ pick: null, nextAt: null })
  })

  test('a held flow is skipped until its hold ends, and counts as due then', async () => {
    const holds = createFailureHolds(1_000, 60_000)
    expect(holds.failed('b', 100)).toBe(1_100)
    expect(await pickDue(['a', 'b'], nextDue, 100, holds)).toEqual({ pick: 'a', nextAt: 1_100 })
    expect(await pickDue(['b'], nextDue, 1_100, holds)).toEqual({ pick: 'b', nextAt: null })
  })
})

describe('createFailureHolds', () => {
  test('each failure in a row doubles the hold up to the cap; a success clears it', () => {
    const holds = createFailureHolds(1_000, 5_000)
    expect([1, 2, 3, 4].map(() => holds.failed('x', 0))).toEqual([1_000, 2_000, 4_000, 5_000])
    expect(holds.until('x')).toBe(5_000)
    expect(holds.until('y')).toBeNull()
    holds.succeeded('x')
    expect(holds.until('x')).toBeNull()
    expect(holds.failed('x', 10)).toBe(1_010)
  })
})

describe('FailureHolds.attempt', () => {
  test('a step that throws is held back, reported with its retry time and counts as nothing; one that passes clears the hold', async () => {
    const holds = createFailureHolds(1_000, 60_000)
    const reported: [number, string][] = []
    const report = (retryAt: number, err: unknown) => reported.push([retryAt, (err as Error).message])
    const boom = () => {
      throw new Error('boom')
    }
    expect(await holds.attempt('j', 100, boom, report)).toBe(0)
    expect(reported).toEqual([[1_100, 'boom']])
    expect(holds.until('j')).toBe(1_100)
    expect(await holds.attempt('j', 1_100, () => 7, report)).toBe(7)
    expect(holds.until('j')).toBeNull()
  })
})
