import { afterAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { startWakeChannel } from '../../../src/db/postgres/wake-channel'
import { createWakers, type WorkerName } from '../../../src/lib/wakers'
import { blankDatabase } from '../../helpers/postgres'

// Two processes on one database (two pools, two worker registries): a wake on one reaches the
// other's worker through LISTEN/NOTIFY, and a process does not wake itself a second time.
const url = await blankDatabase()
const pools = [new SQL({ url, max: 2 }), new SQL({ url, max: 2 })]
afterAll(async () => {
  for (const p of pools) await p.close()
})

const processOn = async (pool: SQL) => {
  const wakers = createWakers()
  const kicks: WorkerName[] = []
  for (const name of ['send', 'imports'] as const) wakers.register(name, () => kicks.push(name))
  return { wakers, kicks, channel: await startWakeChannel(pool, wakers) }
}

const until = async (done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i++) await Bun.sleep(10)
}

// PostgreSQL delivers notifications in commit order: once a later one has arrived, any earlier
// one would have, so each absence is checked behind a later wake rather than after a sleep.
test('a wake on one process wakes the same worker on the other, once for a burst of wakes', async () => {
  const a = await processOn(pools[0]!)
  const b = await processOn(pools[1]!)
  try {
    a.wakers.wake('send')
    a.wakers.wake('send')
    a.wakers.wake('imports')
    expect(a.kicks).toEqual(['send', 'send', 'imports']) // its own, at once
    await until(() => b.kicks.length >= 2)
    b.wakers.wakeHere('send') // a wake another process relayed is not relayed again
    b.wakers.wake('imports') // the later wake the absences are checked behind
    await until(() => a.kicks.length >= 4)
    expect(a.kicks).toEqual(['send', 'send', 'imports', 'imports']) // nothing of its own came back
    expect(b.kicks.slice(0, 2).sort()).toEqual(['imports', 'send']) // one each for the burst
  } finally {
    await a.channel.stop()
    await b.channel.stop()
  }
})

test('once stopped, a process neither relays nor hears wakes', async () => {
  const a = await processOn(pools[0]!)
  const b = await processOn(pools[1]!)
  const c = await processOn(pools[1]!)
  try {
    await b.channel.stop()
    b.wakers.wake('imports')
    a.wakers.wake('send')
    await until(() => c.kicks.length >= 1)
    expect(c.kicks).toEqual(['send'])
    expect(b.kicks).toEqual(['imports']) // its own only
    expect(a.kicks).toEqual(['send'])
  } finally {
    await a.channel.stop()
    await c.channel.stop()
  }
})

test("a signal runs in every process, the sender's included, when the transaction that sent it commits", async () => {
  const heard: string[] = []
  const on = async (pool: SQL, who: string) =>
    await startWakeChannel(pool, createWakers(), {
      credentials: () => heard.push(who),
      marker: () => heard.push(`${who} marker`),
    })
  const a = await on(pools[0]!, 'a')
  const b = await on(pools[1]!, 'b')
  try {
    // Rolled back: never delivered. Committed: delivered to both, after the rolled-back one
    // would have been (notifications arrive in commit order).
    await pools[0]!
      .begin(async (tx) => {
        await tx`SELECT pg_notify('herald_wake', 'credentials:')`
        throw new Error('rolled back')
      })
      .catch(() => {})
    await pools[0]!.begin(async (tx) => {
      await tx`SELECT pg_notify('herald_wake', 'credentials:')`
      // A notification committed meanwhile arrives; the transaction's does not, yet.
      await pools[1]!`SELECT pg_notify('herald_wake', 'marker:')`
      await until(() => heard.length >= 2)
      expect(heard.sort()).toEqual(['a marker', 'b marker'])
    })
    await until(() => heard.length >= 4)
    expect(heard.slice(2).sort()).toEqual(['a', 'b'])
  } finally {
    await a.stop()
    await b.stop()
  }
})
