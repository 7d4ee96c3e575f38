import { expect, test } from 'bun:test'
import { DIALECT } from '../../../src/db/dialect'
import { messagesWithProviderIds } from '../../../src/services/esp-feedback/record'
import { createTestApp } from '../../helpers/app'

// An ESP's feedback (SES, Mailgun…) finds its message by the provider's id through that id's
// index on either store, whatever the size of the client's outbox: with the client in the query,
// SQLite walked all of the client's messages by client_id instead.

const t = await createTestApp()

/** The plan of a drizzle query as the store runs it. */
async function planOf(query: { toSQL(): { sql: string; params: unknown[] } }): Promise<string> {
  const { sql, params } = query.toSQL()
  if (DIALECT === 'postgres')
    return await t.ctx.store.postgres!.begin(async (tx) => {
      // A near-empty table is read whole otherwise, whatever its indexes.
      await tx.unsafe('SET LOCAL enable_seqscan = off')
      const rows = (await tx.unsafe(`EXPLAIN ${sql}`, params)) as { 'QUERY PLAN': string }[]
      return rows.map((r) => r['QUERY PLAN']).join('\n')
    })
  const rows = t.ctx.store.sqlite.query(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as string[])) as {
    detail: string
  }[]
  return rows.map((r) => r.detail).join('\n')
}

test('an ESP feedback event finds its message through the provider id index', async () => {
  expect(await planOf(messagesWithProviderIds(t.ctx, ['0102-a', '0102-b']))).toContain(
    'messages_provider_id_idx',
  )
})
