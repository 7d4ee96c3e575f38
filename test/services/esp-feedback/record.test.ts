import { expect, test } from 'bun:test'
import { DIALECT } from '../../../src/db/dialect'
import { messageWithProviderIds } from '../../../src/services/esp-feedback/record'
import { createTestApp } from '../../helpers/app'

// An ESP's feedback (SES, Mailgun…) finds its message by the provider's id through that id's
// index, whatever the size of the client's outbox: with the client as a plain condition, SQLite
// (which keeps no statistics) walked all of the client's messages by client_id instead.
// PostgreSQL chooses by its statistics.

test.skipIf(DIALECT !== 'sqlite')(
  'an ESP feedback event finds its message through the provider id index',
  async () => {
    const t = await createTestApp()
    const { sql, params } = messageWithProviderIds(t.ctx, 'client-a', ['0102-a', '0102-b']).toSQL()
    const plan = t.ctx.store.sqlite
      .query<{ detail: string }, string[]>(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...(params as string[]))
      .map((r) => r.detail)
      .join('\n')
    expect(plan).toContain('messages_provider_id_idx')
  },
)
