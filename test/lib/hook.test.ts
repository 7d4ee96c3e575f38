import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { inTransaction } from '../../src/db/transaction'
import { createHook } from '../../src/lib/hook'

// The hook list itself: handlers in bind order, unbind by id, wants, and a throw that leaves
// the caller's transaction, which rolls back every write made before it, the handlers' too.

describe('a hook', () => {
  test('runs its handlers in bind order with the payload; an unbound one no longer runs', async () => {
    const hook = createHook<{ n: number }>('test')
    const seen: string[] = []
    hook.bind((e) => void seen.push(`a${e.n}`))
    const b = hook.bind((e) => void seen.push(`b${e.n}`))
    hook.bind((e) => void seen.push(`c${e.n}`))
    await hook.trigger({ n: 1 })
    hook.unbind(b)
    await hook.trigger({ n: 2 })
    expect(seen).toEqual(['a1', 'b1', 'c1', 'a2', 'c2'])
    expect(hook.length).toBe(2)
  })

  test('a handler bound or unbound while it runs changes the next trigger, not this one', async () => {
    const hook = createHook<void>('test')
    const seen: string[] = []
    const a = hook.bind(() => {
      seen.push('a')
      hook.unbind(a)
      hook.bind(() => void seen.push('late'))
    })
    hook.bind(() => void seen.push('b'))
    await hook.trigger()
    await hook.trigger()
    expect(seen).toEqual(['a', 'b', 'b', 'late'])
  })

  test('wants: nobody bound wants nothing; a handler without wants wants every key', async () => {
    const hook = createHook<string, string>('test')
    expect(await hook.wants('list-1')).toBe(false)
    const picky = hook.bind(() => {}, { wants: (key) => key === 'list-1' })
    expect([await hook.wants('list-1'), await hook.wants('list-2')]).toEqual([true, false])
    hook.unbind(picky)
    hook.bind(() => {})
    expect(await hook.wants('list-2')).toBe(true)
  })

  test('an async handler is awaited: trigger resolves after its work, before the next handler', async () => {
    const hook = createHook<void>('test')
    const seen: string[] = []
    hook.bind(async () => {
      await Bun.sleep(1)
      seen.push('slow')
    })
    hook.bind(() => void seen.push('next'))
    await hook.trigger()
    expect(seen).toEqual(['slow', 'next'])
  })

  test('a throw stops the later handlers and rolls back the transaction, the earlier handlers’ writes too', async () => {
    const db = new Database(':memory:')
    await db.run('CREATE TABLE t (v TEXT)')
    const insert = async (v: string) => await db.run('INSERT INTO t (v) VALUES (?)', [v])
    const hook = createHook<string>('test')
    hook.bind(async (v) => {
      await insert(`handler ${v}`)
    })
    const failing = hook.bind(() => {
      throw new Error('no')
    })
    let after = false
    hook.bind(() => {
      after = true
    })
    const change = async (v: string) =>
      await inTransaction(db, async () => {
        await insert(`caller ${v}`)
        await hook.trigger(v)
      })
    await expect(change('1')).rejects.toThrow('no')
    expect(after).toBe(false)
    expect(await db.query('SELECT v FROM t').all()).toEqual([])
    hook.unbind(failing)
    await change('2')
    expect((await db.query('SELECT v FROM t').values()).flat()).toEqual(['caller 2', 'handler 2'])
    expect(after).toBe(true)
  })
})
