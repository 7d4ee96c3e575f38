// The PostgreSQL store's transactions, as verbs use them: the store's db answers from the
// caller's transaction, a throw undoes it, a nested call is a savepoint, and transactions run
// one at a time in arrival order. Runs in the PostgreSQL pass of the suite (test/db/postgres/
// suite.test.ts); on SQLite it is skipped, the same behaviours are test/db/routing.test.ts's.
import { describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { DIALECT } from '../../../src/db/dialect'
import { NotOnPostgresError } from '../../../src/db/postgres/handle'
import { rawRows, rawRun } from '../../../src/db/raw'
import { rowByKeyStatement } from '../../../src/db/row-by-key'
import { clients } from '../../../src/db/schema'
import { inTransaction } from '../../../src/db/transaction'
import { createTestApp, type TestApp } from '../../helpers/app'

const onPostgres = DIALECT === 'postgres'

describe.skipIf(!onPostgres)('the PostgreSQL store', async () => {
  const t = (onPostgres ? await createTestApp() : null) as TestApp
  const names = async () =>
    (await rawRows<{ name: string }>(t.ctx.db, sql`SELECT name FROM probe ORDER BY id`)).map((r) => r.name)
  const add = (name: string) => rawRun(t.ctx.db, sql`INSERT INTO probe (name) VALUES (${name})`)

  if (onPostgres)
    await rawRun(
      t.ctx.db,
      sql`CREATE TABLE probe (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text)`,
    )

  test('a transaction commits what it wrote; one that throws leaves nothing behind', async () => {
    await inTransaction(t.ctx.sqlite, async () => {
      await add('kept')
    })
    await expect(
      inTransaction(t.ctx.sqlite, async () => {
        await add('undone')
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    expect(await names()).toEqual(['kept'])
  })

  test('inside a transaction the store db sees its own writes; outside, nothing until it commits', async () => {
    let seenOutside: string[] = []
    let seenInside: string[] = []
    let wrote!: () => void
    const written = new Promise<void>((r) => {
      wrote = r
    })
    let release!: () => void
    const held = new Promise<void>((r) => {
      release = r
    })
    const tx = inTransaction(t.ctx.sqlite, async () => {
      await add('pending')
      seenInside = await names()
      wrote()
      await held
    })
    await written
    seenOutside = await names()
    release()
    await tx
    expect(seenInside).toContain('pending')
    expect(seenOutside).not.toContain('pending')
    expect(await names()).toContain('pending')
  })

  test('a nested transaction is a savepoint: its throw undoes only its own writes', async () => {
    await inTransaction(t.ctx.sqlite, async () => {
      await add('outer')
      await inTransaction(t.ctx.sqlite, async () => {
        await add('inner')
        throw new Error('inner fails')
      }).catch(() => {})
    })
    const all = await names()
    expect(all).toContain('outer')
    expect(all).not.toContain('inner')
  })

  test('transactions run one at a time, in the order they were asked for', async () => {
    const order: string[] = []
    const run = (name: string, ms: number) =>
      inTransaction(t.ctx.sqlite, async () => {
        order.push(`${name} begins`)
        await Bun.sleep(ms)
        await add(name)
        order.push(`${name} ends`)
      })
    await Promise.all([run('first', 30), run('second', 0), run('third', 0)])
    expect(order).toEqual([
      'first begins',
      'first ends',
      'second begins',
      'second ends',
      'third begins',
      'third ends',
    ])
  })

  test('a statement with no PostgreSQL form fails naming what was asked for, not with a wrong answer', () => {
    expect(() => t.ctx.sqlite.query('SELECT 1')).toThrow(NotOnPostgresError)
    expect(() => t.ctx.sqlite.query('SELECT 1')).toThrow(
      /SQLite connection's query\(\).*does not run on PostgreSQL yet/,
    )
  })

  test('a row by its key: drizzle’s select, prepared once; inside a transaction it sees the transaction’s own write', async () => {
    const byId = rowByKeyStatement(t.ctx.sqlite, clients, clients.id)
    const drizzle = async (id: string) => (await t.ctx.db.select().from(clients).where(eq(clients.id, id)))[0]
    const ours = await byId(t.defaultClientId)
    expect(ours).toEqual((await drizzle(t.defaultClientId))!)
    expect(Object.keys(ours!)).toEqual(Object.keys((await drizzle(t.defaultClientId))!))
    expect(await byId('00000000-0000-7000-8000-000000000000')).toBeNull()
    let inside: string | undefined
    await inTransaction(t.ctx.sqlite, async () => {
      await t.ctx.db
        .update(clients)
        .set({ name: 'Renamed in the transaction' })
        .where(eq(clients.id, t.defaultClientId))
      inside = (await byId(t.defaultClientId))?.name
    })
    expect(inside).toBe('Renamed in the transaction')
    expect((await byId(t.defaultClientId))?.name).toBe('Renamed in the transaction')
  })
})
