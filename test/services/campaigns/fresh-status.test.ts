import { expect, test } from 'bun:test'
import { createCampaignStatuses } from '../../../src/services/campaigns/fresh-status'

/** A store whose status reads are counted, and a hand-moved clock (milliseconds). */
function setup() {
  let status: string | null = 'sending'
  let reads = 0
  let failNext = false
  let t = 0
  const statuses = createCampaignStatuses(
    async () => {
      reads++
      if (failNext) {
        failNext = false
        throw new Error('the store went away')
      }
      return status
    },
    () => t,
  )
  return {
    statuses,
    set: (s: string | null) => {
      status = s
    },
    reads: () => reads,
    failOnce: () => {
      failNext = true
    },
    advance: (ms: number) => {
      t += ms
    },
  }
}

test('a status is read once per 100 ms however many sends ask, then again', async () => {
  const s = setup()
  const asks = await Promise.all(Array.from({ length: 50 }, () => s.statuses.fresh('cmp_a')))
  expect(new Set(asks)).toEqual(new Set(['sending']))
  expect(s.reads()).toBe(1)
  s.set('paused') // another process paused it
  s.advance(99)
  expect(await s.statuses.fresh('cmp_a')).toBe('sending')
  s.advance(1)
  expect(await s.statuses.fresh('cmp_a')).toBe('paused')
  expect(s.reads()).toBe(2)
  expect(await s.statuses.fresh('cmp_b')).toBe('paused') // each campaign has its own read
  expect(s.reads()).toBe(3)
})

test("this process's own change is read at the next ask, and at every ask while it commits", async () => {
  const s = setup()
  expect(await s.statuses.fresh('cmp_a')).toBe('sending')
  s.statuses.changing('cmp_a') // the pause's transaction has not committed yet
  expect(await s.statuses.fresh('cmp_a')).toBe('sending')
  s.set('paused') // now it has
  expect(await s.statuses.fresh('cmp_a')).toBe('paused')
  expect(s.reads()).toBe(3)
  s.advance(1000) // the change is long committed: reads are shared again
  await s.statuses.fresh('cmp_a')
  await s.statuses.fresh('cmp_a')
  expect(s.reads()).toBe(4)
})

test('a failed read is not remembered', async () => {
  const s = setup()
  s.failOnce()
  await expect(s.statuses.fresh('cmp_a')).rejects.toThrow('the store went away')
  expect(await s.statuses.fresh('cmp_a')).toBe('sending')
  expect(s.reads()).toBe(2)
})
