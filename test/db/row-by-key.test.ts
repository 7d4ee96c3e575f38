import { describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { perConnection } from '../../src/db/prepared'
import { rowByKeyStatement } from '../../src/db/row-by-key'
import { apiKeys, clients } from '../../src/db/schema'
import { createTestApp } from '../helpers/app'

// rowByKeyStatement answers drizzle's own select of the row, member for member, without its
// mapping; a table with a column drizzle converts is refused.

const t = await createTestApp()

describe('rowByKeyStatement', () => {
  test('a client row: equal to drizzle’s select, members in the same order; none for an unknown id', async () => {
    const named = (
      await t.call('POST', '/api/v1/clients', {
        body: { name: 'Ünïcode "quoted" client', industry: 'retail', timezone: 'Europe/Paris' },
      })
    ).body.data.id as string
    const byId = rowByKeyStatement(t.ctx.sqlite, clients, clients.id)
    const drizzleById = t.ctx.db
      .select()
      .from(clients)
      .where(eq(clients.id, sql.placeholder('id')))
      .prepare()
    for (const id of [t.defaultClientId, named]) {
      const ours = await byId(id)
      const theirs = await drizzleById.get({ id })
      expect(ours).toEqual(theirs!)
      expect(Object.keys(ours!)).toEqual(Object.keys(theirs!))
      expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs))
    }
    expect((await byId(named))!.timezone).toBe('Europe/Paris')
    expect(await byId('00000000-0000-7000-8000-000000000000')).toBeNull()
  })

  test('a table with a JSON or boolean column is refused when the statement is built', () => {
    expect(() => rowByKeyStatement(t.ctx.sqlite, apiKeys, apiKeys.id)).toThrow(
      /api_keys\.scopes \(SQLiteTextJson\)/,
    )
  })

  test('through perConnection: one statement per connection, reused', async () => {
    let built = 0
    const get = perConnection((sqlite) => {
      built++
      return rowByKeyStatement(sqlite, clients, clients.id)
    })
    expect((await get(t.ctx.sqlite)(t.defaultClientId))?.id).toBe(t.defaultClientId)
    expect((await get(t.ctx.sqlite)(t.defaultClientId))?.name).toBeString()
    expect(built).toBe(1)
  })
})
