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
