import { expect, test } from 'bun:test'
import { SQL } from 'bun'
import { sql } from 'drizzle-orm'
import { DIALECT } from '../../../src/db/dialect'
import { adminApi } from '../../helpers/admin-api'
import { createTestApp } from '../../helpers/app'
import { untilOneWaitsOnLock } from '../../helpers/pg-database'
import { rowsOf } from '../../helpers/raw-sql'

// Two processes on one PostgreSQL enrolling the same contacts at once (an integrator's enroll
// call retried through the other process, two trigger hooks for one contact): each contact is
// in the flow once, with one run, and neither call fails. On SQLite one process holds the only
// writer, and the same calls one after the other show the same answer.

const t = await createTestApp()
const call = await adminApi(t)
const url = t.ctx.config.databaseUrl!
let n = 0

async function activeSequence() {
  const s = await call('POST', '/api/v1/sequences', {
    name: `S${n++}`,
    steps: [{ subject: 'Hi', body_text: 'Hello' }],
  })
  await call('POST', `/api/v1/sequences/${s.id}/activate`)
  return s.id as string
}
const newContact = async () =>
  (await call('POST', '/api/v1/contacts', { email: `e${n++}@example.com` })).id as string

const enrollments = async (flowId: string) =>
  await rowsOf<{ contact_id: string; runs: number }>(
    t,
    sql`SELECT e.contact_id, (SELECT count(*) FROM flow_runs r WHERE r.enrollment_seq = e.seq) AS runs
      FROM flow_enrollments e WHERE e.flow_id = ${flowId} ORDER BY e.contact_id`,
  )

test.if(DIALECT === 'postgres')(
  'a contact another process is enrolling, not yet committed, enters once',
  async () => {
    const flowId = await activeSequence()
    const [mine, theirs] = [await newContact(), await newContact()]
    const other = new SQL({ url, max: 1 })
    const watch = new SQL({ url, max: 1 })
    try {
      let answer: Promise<{ enrolled: number }> | undefined
      await other.begin(async (tx) => {
        // The other process enters `theirs` and has not committed yet.
        const [e] =
          (await tx`INSERT INTO flow_enrollments (flow_kind, flow_id, client_id, contact_id, status, current_node, history, entered_at, updated_at)
          VALUES ('sequence', ${flowId}, ${t.defaultClientId}, ${theirs}, 'active', 'step_1', '[]'::jsonb, 0, 0) RETURNING seq`) as {
            seq: string
          }[]
        await tx`INSERT INTO flow_runs (enrollment_seq, flow_id, contact_id, node_id, next_run_at) VALUES (${e!.seq}, ${flowId}, ${theirs}, 'step_1', 0)`
        answer = call('POST', `/api/v1/sequences/${flowId}/enroll`, { contact_ids: [mine, theirs] })
        // It waits for the other to commit (one that did not wait entered `theirs` a second time).
        await Promise.race([
          untilOneWaitsOnLock(watch, 'the enroll call waits for the other process'),
          answer,
        ])
      })
      expect((await answer!).enrolled).toBe(1)
      const rows = await enrollments(flowId)
      expect(rows.map((r) => r.contact_id).sort()).toEqual([mine, theirs].sort())
      for (const r of rows) expect(Number(r.runs)).toBe(1)
    } finally {
      await other.close()
      await watch.close()
    }
  },
)

test('the same contacts enrolled twice at once enter once each', async () => {
  const flowId = await activeSequence()
  const ids = [await newContact(), await newContact(), await newContact()]
  const answers = await Promise.all([
    call('POST', `/api/v1/sequences/${flowId}/enroll`, { contact_ids: ids }),
    call('POST', `/api/v1/sequences/${flowId}/enroll`, { contact_ids: ids }),
  ])
  expect(answers.reduce((sum, a) => sum + a.enrolled, 0)).toBe(3)
  const rows = await enrollments(flowId)
  expect(rows).toHaveLength(3)
  for (const r of rows) expect(Number(r.runs)).toBe(1)
})
