import { describe, expect, test } from 'bun:test'
import { createRenderAhead } from '../../src/queue/render-ahead'

// Renders are started ahead of their send turns, in queue order, never more than the window
// started and not yet taken; a send whose render has not started starts it itself.

/** A render that ends when the test says so. */
function pendingRender(started: number[], id: number) {
  let end!: (v: number) => void
  const start = () => {
    started.push(id)
    return new Promise<number>((resolve) => {
      end = resolve
    })
  }
  return { start, end: (v = id) => end(v) }
}

describe('render ahead', () => {
  test('starts at most the window, in order, and one more as each is taken', async () => {
    const ahead = createRenderAhead(2)
    const started: number[] = []
    const renders = [0, 1, 2, 3].map((i) => pendingRender(started, i))
    const takes = renders.map((r) => ahead.add(r.start))
    expect(started).toEqual([0, 1])
    // A finished render still holds its place until its send takes it.
    renders[0]!.end()
    await Bun.sleep(0)
    expect(started).toEqual([0, 1])
    expect(await takes[0]!()).toBe(0)
    expect(started).toEqual([0, 1, 2])
    renders[1]!.end()
    expect(await takes[1]!()).toBe(1)
    expect(started).toEqual([0, 1, 2, 3])
    renders[2]!.end()
    renders[3]!.end()
    expect(await takes[3]!()).toBe(3)
    expect(await takes[2]!()).toBe(2)
  })

  test('a send whose render has not started starts it, and the window is kept', async () => {
    const ahead = createRenderAhead(1)
    const started: number[] = []
    const renders = [0, 1, 2].map((i) => pendingRender(started, i))
    const takes = renders.map((r) => ahead.add(r.start))
    expect(started).toEqual([0])
    // The third send's turn comes first: it starts its own render, not the second's.
    const third = takes[2]!()
    expect(started).toEqual([0, 2])
    renders[2]!.end()
    expect(await third).toBe(2)
    renders[0]!.end()
    expect(await takes[0]!()).toBe(0)
    expect(started).toEqual([0, 2, 1])
    renders[1]!.end()
    expect(await takes[1]!()).toBe(1)
  })

  test('a failed render fails its send only, frees its place, and is never unhandled', async () => {
    const ahead = createRenderAhead(1)
    const failing = ahead.add(() => Promise.reject(new Error('pool closed')))
    const started: number[] = []
    const next = pendingRender(started, 1)
    const take = ahead.add(next.start)
    await Bun.sleep(0)
    expect(started).toEqual([])
    await expect(failing()).rejects.toThrow('pool closed')
    expect(started).toEqual([1])
    next.end()
    expect(await take()).toBe(1)
  })
})
