import { Database } from 'bun:sqlite'
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { SQL } from 'bun'
import { sql } from 'drizzle-orm'
import { DIALECT } from '../../src/db/dialect'
import { fanOut } from '../../src/webhooks/fanout'
import { adminApi } from '../helpers/admin-api'
import { createTestApp } from '../helpers/app'
import { runSql } from '../helpers/raw-sql'

// Two processes on one PostgreSQL database both fan events out. While one holds the dispatch
// mark in its transaction, the other's fan-out answers at once with nothing done, rather than
// reading the same events and waiting on that commit; the events are fanned out all the same.
// With nothing new, a fan-out (every 50 ms of an idle worker) opens no transaction at all.

test.skipIf(DIALECT !== 'postgres')(
  "a fan-out leaves the batch to another process's fan-out under way, and loses nothing",
  async () => {
    const t = await createTestApp({ env: { HERALD_WEBHOOK_ALLOW_PRIVATE: '1' } })
    const clientId = await t.client('Hooked')
    const key = await t.key({ scopes: ['admin:*'], clientId })
    const hook = await t.call('POST', '/api/v1/webhooks', {
      key,
      body: { url: 'http://127.0.0.1:9/in', events: ['contact.unsubscribed'] },
    })
    expect(hook.status).toBe(200)
    const contact = (await t.call('POST', '/api/v1/contacts', { key, body: { email: 'a@example.com' } })).body
      .data
    const unsubscribe = await t.call('PATCH', `/api/v1/contacts/${contact.id}`, {
      key,
      body: { status: 'unsubscribed' },
    })
    expect(unsubscribe.status).toBe(200)

    // The other process's fan-out, inside its transaction.
    const other = new SQL({ url: t.ctx.config.databaseUrl!, max: 1 })
    try {
      let done!: () => void
      const holding = new Promise<void>((r) => {
        done = r
      })
      const locked = Promise.withResolvers<void>()
      const tx = other.begin(async (sql) => {
        await sql`SELECT last_event_seq FROM webhook_dispatch WHERE name = 'events' FOR UPDATE`
        locked.resolve()
        await holding
      })
      await locked.promise
      const answer = await Promise.race([fanOut(t.ctx), Bun.sleep(2_000).then(() => 'still waiting')])
      done()
      await tx
      expect(answer).toEqual({ created: 0, more: false })
    } finally {
      await other.close()
    }
    // The other process's transaction ended without fanning out: this one does it now.
    expect(await fanOut(t.ctx)).toEqual({ created: 1, more: false })
  },
  30_000,
)

test.skipIf(DIALECT !== 'sqlite')(
  'with no new event, a fan-out answers without the write lock another connection holds',
  async () => {
    const t = await createTestApp()
    // What is there is fanned out first: nothing is past the mark then.
    while ((await fanOut(t.ctx)).more) {}
    const other = new Database(join(t.dataDir, 'herald.db'))
    try {
      other.run('BEGIN IMMEDIATE')
      const answer = await Promise.race([fanOut(t.ctx), Bun.sleep(1_000).then(() => 'still waiting')])
      expect(answer).toEqual({ created: 0, more: false })
    } finally {
      other.run('ROLLBACK')
      other.close()
    }
  },
)

test('without its mark a fan-out fails saying so, rather than finding nothing forever', async () => {
  const t = await createTestApp()
  const call = await adminApi(t)
  const contact = await call('POST', '/api/v1/contacts', { email: 'mark@example.com' })
  await call('PATCH', `/api/v1/contacts/${contact.id}`, { status: 'unsubscribed' })
  await runSql(t, sql`DELETE FROM webhook_dispatch`)
  await expect(fanOut(t.ctx)).rejects.toThrow(/webhook_dispatch has no "events" row/)
})
