import { expect, test } from 'bun:test'
import { inTransaction } from '../../src/db/transaction'
import { afterCommit, afterTransaction } from '../../src/lib/after-transaction'
import { createTestApp } from '../helpers/app'

// What a transaction hands to afterTransaction runs when it has ended, whichever way; what it
// hands to afterCommit runs only if it committed. Outside a transaction both run at once.

const t = await createTestApp()
const { sqlite } = t.ctx

const scenarios = [
  { name: 'committed', fails: false, expected: ['inside', 'after the end', 'after the commit'] },
  { name: 'rolled back', fails: true, expected: ['inside', 'after the end'] },
]

for (const s of scenarios)
  test(`a transaction that ${s.name}`, async () => {
    const seen: string[] = []
    const run = inTransaction(sqlite, async () => {
      afterTransaction(() => seen.push('after the end'))
      await inTransaction(sqlite, async () => afterCommit(() => seen.push('after the commit')))
      seen.push('inside')
      if (s.fails) throw new Error('rolled back')
    })
    if (s.fails) await expect(run).rejects.toThrow('rolled back')
    else await run
    expect(seen).toEqual(s.expected)
  })

test('outside a transaction both run at once', () => {
  const seen: string[] = []
  afterTransaction(() => seen.push('end'))
  afterCommit(() => seen.push('commit'))
  expect(seen).toEqual(['end', 'commit'])
})

// A savepoint (a transaction inside one) that rolls back undoes its own writes only: what it
// handed to afterCommit is dropped even though the transaction around it commits; what it handed
// to afterTransaction still waits for that transaction's end.
test('a savepoint that rolls back inside a transaction that commits', async () => {
  const seen: string[] = []
  await inTransaction(sqlite, async () => {
    const inner = inTransaction(sqlite, async () => {
      afterCommit(() => seen.push('after the savepoint’s commit'))
      afterTransaction(() => seen.push('after the end'))
      throw new Error('savepoint rolled back')
    })
    await expect(inner).rejects.toThrow('savepoint rolled back')
    await inTransaction(sqlite, async () => afterCommit(() => seen.push('after the commit')))
    seen.push('inside')
  })
  expect(seen).toEqual(['inside', 'after the end', 'after the commit'])
})

// Another database's transaction run inside this one commits (or rolls back) on its own: what it
// handed over runs at its own end, not at the end of the one around it.
test('a transaction of another store inside one holds its calls until its own end', async () => {
  const other = await createTestApp()
  const seen: string[] = []
  const run = inTransaction(sqlite, async () => {
    await inTransaction(other.ctx.sqlite, async () => {
      afterCommit(() => seen.push('the other store committed'))
      afterTransaction(() => seen.push('the other store’s transaction ended'))
    })
    seen.push('inside')
    throw new Error('rolled back')
  })
  await expect(run).rejects.toThrow('rolled back')
  expect(seen).toEqual(['the other store committed', 'the other store’s transaction ended', 'inside'])
})
