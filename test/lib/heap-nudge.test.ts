import { describe, expect, test } from 'bun:test'
import { createHeapNudge } from '../../src/lib/heap-nudge'

const MB = 1024 * 1024

describe('createHeapNudge', () => {
  test('asks for a collection once the heap grew the budget past its lowest point', () => {
    let size = 30 * MB
    let collections = 0
    const check = createHeapNudge({ budget: 16 * MB, read: () => size, collect: () => collections++ })
    expect(check()).toBe(false)
    size = 25 * MB // a collection lowered it: the floor follows
    expect(check()).toBe(false)
    size = 41 * MB // 16 MB over the floor is not more than the budget
    expect(check()).toBe(false)
    expect(collections).toBe(0)
    size = 41 * MB + 1
    expect(check()).toBe(true)
    expect(collections).toBe(1)
  })

  test('a collection still running is not asked for again until the heap grows another budget', () => {
    let size = 20 * MB
    let collections = 0
    const check = createHeapNudge({ budget: 8 * MB, read: () => size, collect: () => collections++ })
    check()
    size = 30 * MB
    expect(check()).toBe(true)
    size = 35 * MB // still growing while the collection runs
    expect(check()).toBe(false)
    size = 39 * MB
    expect(check()).toBe(true)
    size = 21 * MB // the collection ended: counted from the new floor
    expect(check()).toBe(false)
    size = 29 * MB + 1
    expect(check()).toBe(true)
    expect(collections).toBe(3)
  })
})
