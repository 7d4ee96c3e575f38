import { expect, test } from 'bun:test'
import { SQL } from 'bun'
import { sql } from 'drizzle-orm'
import { DIALECT } from '../../../src/db/dialect'
import { FLOW_DAILY_LOCK } from '../../../src/db/postgres/lock-keys'
import { utcDay } from '../../../src/lib/sending-window'
import { createFlowExecutor } from '../../../src/services/flows/executor'
import { adminApi } from '../../helpers/admin-api'
import { createTestApp } from '../../helpers/app'
import { untilOneWaitsOnLock } from '../../helpers/pg-database'
import { rowsOf } from '../../helpers/raw-sql'

// Two processes on one PostgreSQL stepping the same journeys and sequences: each step batch
// holds the runs it read until it commits, and another process's batch passes over them instead
// of stepping them again (which sent a contact the same step twice); a sender's daily limit is
// read and added to by one process at a time. (On SQLite one process holds the only writer.)

const t = await createTestApp()
const call = await adminApi(t)
const executor = createFlowExecutor(t.ctx)
const url = t.ctx.config.databaseUrl!
let n = 0

/** An active one-step sequence with `count` new contacts enrolled, due now. */
async function enrolledSequence(count: number, settings: Record<string, unknown> = {}) {
  const ids: string[] = []
  for (let i = 0; i < count; i++)
    ids.push((await call('POST', '/api/v1/contacts', { email: `s${n++}@example.com` })).id)
  const s = await call('POST', '/api/v1/sequences', {
    name: `S${n}`,
    steps: [{ subject: 'Hi', body_text: 'Hello' }],
    settings,
  })
  await call('POST', `/api/v1/sequences/${s.id}/activate`)
  await call('POST', `/api/v1/sequences/${s.id}/enroll`, { contact_ids: ids })
  return s.id as string
}

const messagesBy = async (sequenceId: string) =>
  (
    await rowsOf<{ contact_id: string }>(
      t,
      sql`SELECT contact_id FROM messages WHERE source_id = ${sequenceId} ORDER BY contact_id`,
    )
  ).map((r) => r.contact_id)

test.if(DIALECT === 'postgres')(
  'a step passes over the runs another process is stepping, without waiting, and they are stepped once',
  async () => {
    const id = await enrolledSequence(6)
    const other = new SQL({ url, max: 1 })
    try {
      await other.begin(async (tx) => {
        // The other process's batch holds the three oldest runs.
        const held = (await tx`SELECT seq, contact_id FROM flow_runs WHERE flow_id = ${id}
          ORDER BY next_run_at, seq LIMIT 3 FOR UPDATE`) as { contact_id: string }[]
        const pass = executor.pass(200, 50)
        const answer = await Promise.race([pass.then(() => 'stepped'), Bun.sleep(2_000).then(() => 'waited')])
        expect(answer).toBe('stepped')
        // It looks again soon for the runs it passed over, not at its idle poll.
        const { nextAt } = await pass
        expect(nextAt).not.toBeNull()
        expect(nextAt!).toBeLessThanOrEqual(t.ctx.clock.now() + 50)
        const sent = await messagesBy(id)
        expect(sent).toHaveLength(3)
        for (const h of held) expect(sent).not.toContain(h.contact_id)
      })
      // Its batch ended (here without stepping them): the next pass steps them, once each.
      await executor.pass(200, 50)
      const sent = await messagesBy(id)
      expect(sent).toHaveLength(6)
      expect(new Set(sent).size).toBe(6)
    } finally {
      await other.close()
    }
  },
)

test.if(DIALECT === 'postgres')(
  "a sender's daily limit counts what another process queued in a batch still open",
  async () => {
    const id = await enrolledSequence(5, { daily_limit: 3 })
    const client = t.defaultClientId
    const day = utcDay(t.ctx.clock.now())
    const other = new SQL({ url, max: 1 })
    const watch = new SQL({ url, max: 1 })
    try {
      let pass: Promise<unknown> | undefined
      await other.begin(async (tx) => {
        // The other process steps a flow of the same sender and has queued two today.
        await tx`SELECT pg_advisory_xact_lock(${FLOW_DAILY_LOCK}::int, hashtext(${`${client}:default:${day}`}))`
        await tx`INSERT INTO flow_daily_counts (client_id, sender_key, day, queued) VALUES (${client}, 'default', ${day}, 2)`
        pass = executor.pass(200, 50)
        await untilOneWaitsOnLock(watch, 'the step waits for the daily count')
      })
      await pass
      // 3 a day: one more today, the rest wait for tomorrow.
      expect(await messagesBy(id)).toHaveLength(1)
    } finally {
      await other.close()
      await watch.close()
    }
  },
)

test('with no other process, a step steps every due run once', async () => {
  const id = await enrolledSequence(4)
  await executor.pass(200, 50)
  const sent = await messagesBy(id)
  expect(sent).toHaveLength(4)
  expect(new Set(sent).size).toBe(4)
})
