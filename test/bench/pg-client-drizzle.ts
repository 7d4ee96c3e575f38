// What Herald's data layer needs from a drizzle PostgreSQL adapter, checked for one adapter: a
// transaction whose body awaits several statements (all on the transaction's connection, undone
// on a throw), bigint columns read as numbers, and onConflictDoNothing with returning.
import { SQL as BunSQL } from 'bun'
import { count, eq, sql } from 'drizzle-orm'
import { drizzle as bunDrizzle } from 'drizzle-orm/bun-sql'
import { bigint, integer, pgTable, text } from 'drizzle-orm/pg-core'
import { drizzle as pgjsDrizzle } from 'drizzle-orm/postgres-js'
import postgres from 'postgres'

/** The bench's contacts table, for timing each adapter's own overhead on the same statements. */
export const contacts = pgTable('contacts', {
  id: bigint('id', { mode: 'number' }).primaryKey(),
  client_id: bigint('client_id', { mode: 'number' }).notNull(),
  email: text('email').notNull(),
  first_name: text('first_name'),
  last_name: text('last_name'),
  company: text('company'),
  phone: text('phone'),
  plan: text('plan'),
  seats: integer('seats'),
  created_at: bigint('created_at', { mode: 'number' }).notNull(),
})

const people = pgTable('people', {
  id: bigint('id', { mode: 'number' }).primaryKey(),
  email: text('email').notNull().unique(),
  score: bigint('score', { mode: 'number' }).notNull(),
})

const BIG = 2 ** 40 + 1

/** Each check's verdict: 'ok', or what went wrong. */
export async function drizzleChecks(
  adapter: 'postgres-js' | 'bun-sql',
  url: string,
): Promise<Record<string, string>> {
  const pgjs = adapter === 'postgres-js' ? postgres(url, { max: 4, onnotice: () => {} }) : undefined
  const bun = adapter === 'bun-sql' ? new BunSQL({ url, max: 4 }) : undefined
  const db = pgjs ? pgjsDrizzle({ client: pgjs }) : bunDrizzle({ client: bun! })
  const out: Record<string, string> = {}
  const check = async (name: string, fn: () => Promise<void>) => {
    try {
      await fn()
      out[name] = 'ok'
    } catch (e) {
      out[name] = `FAILS: ${(e as Error).message.split('\n')[0]}`
    }
  }
  const total = async () => (await db.select({ n: count() }).from(people))[0]!.n
  await db.execute(
    sql`CREATE TABLE people (id bigint PRIMARY KEY, email text NOT NULL UNIQUE, score bigint NOT NULL)`,
  )

  await check('transaction, several awaits, commit', async () => {
    await db.transaction(async (tx) => {
      await tx.insert(people).values({ id: 1, email: 'a@x.example', score: 1 })
      await tx.insert(people).values({ id: 2, email: 'b@x.example', score: 2 })
      // Outside the transaction its rows are not visible yet: the statements did run on its connection.
      if ((await total()) !== 0) throw new Error('rows visible outside the open transaction')
      await tx.update(people).set({ score: 3 }).where(eq(people.id, 1))
      const [row] = await tx.select().from(people).where(eq(people.id, 1))
      if (row?.score !== 3) throw new Error('the transaction does not read its own write')
    })
    if ((await total()) !== 2) throw new Error('not committed')
  })

  await check('transaction, throw rolls back', async () => {
    await db
      .transaction(async (tx) => {
        await tx.insert(people).values({ id: 3, email: 'c@x.example', score: 3 })
        await tx.update(people).set({ score: 9 }).where(eq(people.id, 1))
        throw new Error('rollback')
      })
      .catch((e: Error) => {
        if (e.message !== 'rollback') throw e
      })
    const [row] = await db.select().from(people).where(eq(people.id, 1))
    if ((await total()) !== 2 || row?.score !== 3) throw new Error('not rolled back')
  })

  await check('bigint column read as number', async () => {
    await db.insert(people).values({ id: BIG, email: 'big@x.example', score: BIG })
    const [row] = await db.select().from(people).where(eq(people.id, BIG))
    if (row?.id !== BIG || row.score !== BIG) throw new Error(`got ${typeof row?.score} ${row?.score}`)
  })

  // Not a check: what a raw aggregate gives without .mapWith(Number), which the store must add.
  const [sum] = await db.select({ s: sql`sum(${people.score})` }).from(people)
  out['raw sum(bigint), no mapWith'] = `a ${typeof sum?.s}`

  await check('onConflictDoNothing + returning', async () => {
    const dup = await db
      .insert(people)
      .values({ id: 4, email: 'a@x.example', score: 0 })
      .onConflictDoNothing()
      .returning()
    const fresh = await db
      .insert(people)
      .values({ id: 5, email: 'e@x.example', score: 0 })
      .onConflictDoNothing()
      .returning({ id: people.id })
    if (dup.length !== 0) throw new Error('a conflicting row came back')
    if (fresh.length !== 1 || fresh[0]!.id !== 5) throw new Error(`returning gave ${JSON.stringify(fresh)}`)
  })

  await check('unique violation: SQLSTATE 23505 on the error or its cause', async () => {
    const e = await db
      .insert(people)
      .values({ id: 6, email: 'a@x.example', score: 0 })
      .then(() => undefined)
      .catch(
        (err: unknown) => err as { code?: string; errno?: string; cause?: { code?: string; errno?: string } },
      )
    const codes = [e?.code, e?.errno, e?.cause?.code, e?.cause?.errno]
    if (!codes.includes('23505')) throw new Error(`codes ${JSON.stringify(codes)}`)
  })

  await check('LISTEN/NOTIFY on the raw client', async () => {
    const got = new Promise<string>((resolve) => {
      if (pgjs) void pgjs.listen('herald_probe', resolve)
      else void bun!.listen('herald_probe', resolve)
    })
    await Bun.sleep(100)
    await db.execute(sql`SELECT pg_notify('herald_probe', 'hello')`)
    const payload = await Promise.race([got, Bun.sleep(2000).then(() => 'nothing in 2 s')])
    if (payload !== 'hello') throw new Error(payload)
  })

  await pgjs?.end()
  await bun?.close()
  return out
}
