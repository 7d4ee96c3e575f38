import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStore, type Store } from '../../src/db/client'
import { inTransaction } from '../../src/db/transaction'

// The store's one writer and the reader beside it: while a transaction holds the writer across
// an await, another caller reads committed rows only, and a change of its own waits for that
// transaction instead of landing inside it (and rolling back with it).

const dir = mkdtempSync(join(tmpdir(), 'herald-routing-'))
const store: Store = await openStore(join(dir, 'routing.db'))
const { sqlite } = store
await inTransaction(sqlite, () => {
  sqlite.run('CREATE TABLE t (v TEXT NOT NULL)')
})
afterAll(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

const rows = async () =>
  (await sqlite.query<{ v: string }, []>('SELECT v FROM t ORDER BY v').all()).map((r) => r.v)

/** A transaction that writes `v`, then waits until `release` is called, then commits or throws. */
function heldTransaction(v: string, fail: boolean) {
  let release = () => {}
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  const done = inTransaction(sqlite, async () => {
    sqlite.query('INSERT INTO t (v) VALUES (?1)').run(v)
    await gate
    if (fail) throw new Error('rolled back')
  })
  return { release, done }
}

describe('one writer, a reader beside it', () => {
  test('a read outside the open transaction sees committed rows only; inside, its own', async () => {
    await inTransaction(sqlite, () => sqlite.run('DELETE FROM t'))
    const tx = heldTransaction('inside', false)
    await Bun.sleep(1)
    expect(await rows()).toEqual([])
    tx.release()
    await tx.done
    expect(await rows()).toEqual(['inside'])
  })

  test('a change outside waits for the open transaction and survives its rollback', async () => {
    await inTransaction(sqlite, () => sqlite.run('DELETE FROM t'))
    const tx = heldTransaction('rolled-back', true)
    await Bun.sleep(1)
    const outside = sqlite.query('INSERT INTO t (v) VALUES (?1)').run('outside')
    // The writer is held: the change is queued behind the transaction, not run inside it.
    expect(outside).toBeInstanceOf(Promise)
    tx.release()
    await expect(tx.done).rejects.toThrow('rolled back')
    await outside
    expect(await rows()).toEqual(['outside'])
  })

  test('with the writer idle, a change outside runs at once', async () => {
    const changed = sqlite.query('INSERT INTO t (v) VALUES (?1)').run('idle')
    expect(changed).not.toBeInstanceOf(Promise)
    expect(await rows()).toContain('idle')
  })
})
