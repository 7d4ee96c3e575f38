import { expect, test } from 'bun:test'
import { createSlice } from '../../src/lib/cooperate'

// A worker's slice: spent once its budget is used; next() resumes in a later macrotask, after
// what was already queued for the event loop (a request's I/O, a timer), never as a microtask.

test('a slice is spent at its budget, and next() lets what is queued run first', async () => {
  expect(createSlice(60_000).spent()).toBe(false)
  const slice = createSlice(0)
  expect(slice.spent()).toBe(true)
  const order: string[] = []
  setImmediate(() => order.push('queued before the yield'))
  queueMicrotask(() => order.push('microtask'))
  const a = slice.next()
  // Everyone yielding in the same turn shares one new slice.
  expect(slice.next()).toBe(a)
  await a
  order.push('resumed')
  expect(order).toEqual(['microtask', 'queued before the yield', 'resumed'])
})
