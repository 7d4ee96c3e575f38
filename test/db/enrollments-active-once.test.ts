import { expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { DIALECT } from '../../src/db/dialect'
import { inTransaction } from '../../src/db/transaction'
import { adminApi } from '../helpers/admin-api'
import { createTestApp } from '../helpers/app'
import { rowsOf, runSql } from '../helpers/raw-sql'

// The migration that allows one active pass per contact and flow first stops the later passes a
// race of two processes may have left (and their queued steps), keeping the first one going. Run
// here on the data such a race wrote: the index dropped, the duplicates written, then the
// migration's statements as the file has them.

const t = await createTestApp()
const call = await adminApi(t)

const dir = join(import.meta.dir, '../../migrations', DIALECT)
const file = readdirSync(dir).find((f) => f.endsWith('_flow_enrollments_active_once.sql'))!
const statements = readFileSync(join(dir, file), 'utf8')
  .split('--> statement-breakpoint')
  .map((s) => s.trim())
  .filter(Boolean)

test('later duplicate active passes stop without their steps; the first and every other pass stay', async () => {
  const s = await call('POST', '/api/v1/sequences', {
    name: 'S',
    steps: [{ subject: 'Hi', body_text: 'Hello' }],
  })
  await call('POST', `/api/v1/sequences/${s.id}/activate`)
  const ann = (await call('POST', '/api/v1/contacts', { email: 'ann@example.com' })).id
  const bob = (await call('POST', '/api/v1/contacts', { email: 'bob@example.com' })).id
  await call('POST', `/api/v1/sequences/${s.id}/enroll`, { contact_ids: [ann, bob] })

  // Ann entered three times at once, as two processes could before the index.
  await runSql(t, sql.raw('DROP INDEX flow_enrollments_active_idx'))
  for (let i = 0; i < 2; i++)
    await runSql(
      t,
      sql`INSERT INTO flow_enrollments (flow_kind, flow_id, client_id, contact_id, status, current_node, history, entered_at, updated_at)
        SELECT flow_kind, flow_id, client_id, contact_id, status, current_node, history, entered_at, updated_at + 1
        FROM flow_enrollments WHERE flow_id = ${s.id} AND contact_id = ${ann} ORDER BY seq LIMIT 1`,
    )
  await runSql(
    t,
    sql`INSERT INTO flow_runs (enrollment_seq, flow_id, contact_id, node_id, next_run_at)
      SELECT e.seq, e.flow_id, e.contact_id, (SELECT node_id FROM flow_runs WHERE flow_id = e.flow_id LIMIT 1), 0
      FROM flow_enrollments e
      WHERE e.flow_id = ${s.id} AND NOT EXISTS (SELECT 1 FROM flow_runs r WHERE r.enrollment_seq = e.seq)`,
  )
  // And Bob twice in a journey (its passes exit rather than stop).
  const journeyId = crypto.randomUUID()
  for (let i = 0; i < 2; i++)
    await runSql(
      t,
      sql`INSERT INTO flow_enrollments (flow_kind, flow_id, client_id, contact_id, status, current_node, history, entered_at, updated_at)
        VALUES ('journey', ${journeyId}, ${t.defaultClientId}, ${bob}, 'active', 'start', '[]', 0, ${i})`,
    )
  const state = async () =>
    await rowsOf<{
      contact_id: string
      status: string
      end_reason: string | null
      runs: number
      ended: number | null
      updated: number
    }>(
      t,
      sql`SELECT e.contact_id, e.status, e.end_reason, CAST((SELECT count(*) FROM flow_runs r WHERE r.enrollment_seq = e.seq) AS INTEGER) AS runs,
          CAST(e.ended_at AS DOUBLE PRECISION) AS ended, CAST(e.updated_at AS DOUBLE PRECISION) AS updated
        FROM flow_enrollments e WHERE e.flow_id = ${s.id} ORDER BY e.seq`,
    )
  expect((await state()).filter((r) => r.status === 'active')).toHaveLength(4)

  // As the migrator runs them: in one transaction.
  await inTransaction(t.ctx.sqlite, async () => {
    for (const statement of statements) await runSql(t, sql.raw(statement))
  })

  const after = await state()
  // A sequence's later passes stop as if stopped by hand (a journey's exit so).
  expect(after.map((r) => [r.contact_id, r.status, r.end_reason, Number(r.runs)])).toEqual([
    [ann, 'active', null, 1],
    [bob, 'active', null, 1],
    [ann, 'stopped', 'manual', 0],
    [ann, 'stopped', 'manual', 0],
  ])
  const journey = await rowsOf<{ status: string; end_reason: string | null }>(
    t,
    sql`SELECT status, end_reason FROM flow_enrollments WHERE flow_id = ${journeyId} ORDER BY seq`,
  )
  expect(journey).toEqual([
    { status: 'active', end_reason: null },
    { status: 'exited', end_reason: 'manual' },
  ])
  for (const r of after.filter((x) => x.status === 'stopped')) expect(Number(r.ended)).toBe(Number(r.updated))
  // The index is back: a second active pass of Ann is refused.
  await expect(
    runSql(
      t,
      sql`UPDATE flow_enrollments SET status = 'active' WHERE flow_id = ${s.id} AND contact_id = ${ann} AND status = 'stopped'`,
    ),
  ).rejects.toThrow()
})
