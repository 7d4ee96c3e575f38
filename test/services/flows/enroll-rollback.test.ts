import { expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { inTransaction } from '../../../src/db/transaction'
import { loadFlow } from '../../../src/services/flows/definition'
import { enrollAudience, enterNextChunk } from '../../../src/services/flows/enroll'
import { adminApi } from '../../helpers/admin-api'
import { createTestApp } from '../../helpers/app'
import { rowsOf } from '../../helpers/raw-sql'

// A large enrollment enters chunk by chunk, each in a transaction of its own. A chunk whose
// transaction rolls back (a full disk, a failed commit) is entered again by the next call, first
// or last: the job is neither dropped nor stuck, and each contact enters once.

const t = await createTestApp()
const call = await adminApi(t)
let n = 0

/** A sequence with six contacts to enter by a job (none entered by the call itself). */
async function job() {
  const ids: string[] = []
  for (let i = 0; i < 6; i++)
    ids.push((await call('POST', '/api/v1/contacts', { email: `r${n++}@example.com` })).id)
  const s = await call('POST', '/api/v1/sequences', {
    name: `S${n}`,
    steps: [{ subject: 'Hi', body_text: 'Hello' }],
  })
  await call('POST', `/api/v1/sequences/${s.id}/activate`)
  const found = (await loadFlow(t.ctx.db, 'sequence', s.id))!
  await enrollAudience(t.ctx, found.flow, { contact_ids: ids, segment: null, list_id: null }, null, 0)
  return s.id as string
}
const entered = async (flowId: string) =>
  (
    await rowsOf<{ contact_id: string }>(
      t,
      sql`SELECT contact_id FROM flow_enrollments WHERE flow_id = ${flowId}`,
    )
  ).length
const chunk = () => inTransaction(t.ctx.sqlite, () => enterNextChunk(t.ctx, 4))
const rolledBack = async (expected: number) =>
  await expect(
    inTransaction(t.ctx.sqlite, async () => {
      expect(await enterNextChunk(t.ctx, 4)).toBe(expected)
      throw new Error('the commit failed')
    }),
  ).rejects.toThrow('the commit failed')

test('the first chunk rolled back: the next call enters it', async () => {
  const id = await job()
  await rolledBack(4)
  expect(await chunk()).toBe(4)
  expect(await chunk()).toBe(2)
  expect(await chunk()).toBeNull()
  expect(await entered(id)).toBe(6)
})

test('the last chunk rolled back after it ended the job: the next call enters it', async () => {
  const id = await job()
  expect(await chunk()).toBe(4)
  await rolledBack(2)
  expect(await chunk()).toBe(2)
  expect(await chunk()).toBeNull()
  expect(await entered(id)).toBe(6)
})
