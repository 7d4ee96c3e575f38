import { describe, expect, test } from 'bun:test'
import { Cron } from 'croner'
import { createJobRegistry, firingSlot } from '../../src/jobs/registry'
import { silentLogger } from '../../src/lib/log'
import { claimJobSlot } from '../../src/services/jobs/slots'
import { createTestApp } from '../helpers/app'

describe('scheduled firings claimed across processes', async () => {
  const t = await createTestApp()
  // Two processes' registries on one database: each counts its own runs of the same job.
  const processOf = () => {
    const registry = createJobRegistry(silentLogger)
    const runs: number[] = []
    registry.register({
      name: 'sweep',
      schedule: '0 * * * * *',
      description: 'test',
      run: () => void runs.push(1),
    })
    registry.claimSlotsWith((name, slotAt) => claimJobSlot(t.ctx.db, name, slotAt))
    return { registry, runs }
  }
  const a = processOf()
  const b = processOf()

  test('each slot runs in one process, whichever fires first; a later slot runs again', async () => {
    const slot = Date.UTC(2026, 10, 29, 12, 0)
    const first = await Promise.all([a.registry.tick('sweep', slot), b.registry.tick('sweep', slot)])
    expect(first.filter(Boolean)).toHaveLength(1)
    expect(a.runs.length + b.runs.length).toBe(1)
    // An older slot (a process whose clock lags by more than the period) is not run again.
    expect(await a.registry.tick('sweep', slot - 60_000)).toBe(false)
    expect(await b.registry.tick('sweep', slot + 60_000)).toBe(true)
    expect(await a.registry.tick('sweep', slot + 60_000)).toBe(false)
    expect(a.runs.length + b.runs.length).toBe(2)
  })

  test('"Run now" and a tick without a slot are not claimed', async () => {
    const before = a.runs.length
    await a.registry.runNow('sweep')
    expect(await a.registry.tick('sweep')).toBe(true)
    expect(a.runs.length).toBe(before + 2)
  })

  test('a claim the store refuses skips the firing instead of running it unclaimed', async () => {
    const registry = createJobRegistry(silentLogger)
    const ran: string[] = []
    registry.register({
      name: 'x',
      schedule: '0 * * * * *',
      description: 'test',
      run: () => void ran.push('x'),
    })
    registry.claimSlotsWith(async () => {
      throw new Error('the store is away')
    })
    expect(await registry.tick('x', 0)).toBe(false)
    expect(ran).toEqual([])
  })
})

test('the slot of a firing is the time the schedule named, whenever the timer fired', () => {
  const minutely = new Cron('0 * * * * *', { paused: true })
  const noon = Date.UTC(2026, 10, 29, 12, 0)
  expect(firingSlot(minutely, noon)).toBe(noon)
  expect(firingSlot(minutely, noon + 350)).toBe(noon)
  expect(firingSlot(minutely, noon + 59_999)).toBe(noon)
  expect(firingSlot(minutely, noon + 60_000)).toBe(noon + 60_000)
  const everySecond = new Cron('* * * * * *', { paused: true })
  expect(firingSlot(everySecond, noon + 1_999)).toBe(noon + 1_000)
})
