import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import fc from 'fast-check'
import { DIALECT } from '../../src/db/dialect'
import { mapInOrder } from '../../src/lib/in-order'
import { contactsHighWater, indexContactsAfter } from '../../src/services/contacts/search-index'
import { countUnreachableAfter } from '../../src/services/contacts/unreachable'
import { createImportWorker } from '../../src/services/imports/runner'
import { createTestApp } from '../helpers/app'
import { rowOf, runSql } from '../helpers/raw-sql'

// clients.unreachable_count (migration 0030: contacts bounced hard, complained or suppressed, each
// once; the deliverability score's list_hygiene) is kept by the insert paths (countUnreachableAfter)
// and by triggers on contacts and suppressions.
// Property: after any sequence of inserts, deletes and updates of either table, in any order and
// for two clients sharing addresses, the counter equals the count taken from the rows. Then the
// same through the API's own paths, and the migration's backfill against the same count.
// FC_SEED=<n> replays a failing run; FC_RUNS=<n> changes the number of runs.

// Each run is a few hundred statements: seconds on PostgreSQL, over the default 5 s per test.
setDefaultTimeout(120_000)

const RUNS = Number(process.env.FC_RUNS ?? 60)
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined

const t = await createTestApp()
// The insert paths' own functions take the connection (the store's handle on PostgreSQL).
const db = t.ctx.sqlite
const clients = [await t.client('Acme'), await t.client('Globex')]

const counter = async (clientId: string) =>
  (await rowOf<{ n: number }>(
    t,
    sql`SELECT CAST(unreachable_count AS INTEGER) AS n FROM clients WHERE id = ${clientId}`,
  ))!.n
/** The definition, counted from the rows. */
const counted = async (clientId: string) =>
  (await rowOf<{ n: number }>(
    t,
    sql`SELECT CAST(count(*) AS INTEGER) AS n FROM contacts WHERE client_id = ${clientId} AND (status IN ('bounced', 'complained')
        OR EXISTS (SELECT 1 FROM suppressions s WHERE s.client_id = ${clientId} AND s.email = lower(contacts.email)))`,
  ))!.n
const expectExact = async () => {
  for (const c of clients)
    expect({ client: c, n: await counter(c) }).toEqual({ client: c, n: await counted(c) })
}

// A few addresses in two spellings each, so contacts and suppressions meet case-insensitively.
const EMAILS = ['ann@x.example', 'Bob@X.example', 'cy@x.example', 'DAN@x.example']
const STATUSES = ['subscribed', 'unsubscribed', 'bounced', 'complained', 'blocked'] as const

const op = fc.oneof(
  fc.record({
    kind: fc.constant('insert-contact' as const),
    client: fc.nat(1),
    email: fc.constantFrom(...EMAILS),
    upper: fc.boolean(),
    status: fc.constantFrom(...STATUSES),
  }),
  fc.record({
    kind: fc.constant('delete-contact' as const),
    client: fc.nat(1),
    email: fc.constantFrom(...EMAILS),
  }),
  fc.record({
    kind: fc.constant('set-status' as const),
    client: fc.nat(1),
    email: fc.constantFrom(...EMAILS),
    status: fc.constantFrom(...STATUSES),
    // An import writes status on every row it updates, changed or not.
    withName: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('set-email' as const),
    client: fc.nat(1),
    email: fc.constantFrom(...EMAILS),
    to: fc.constantFrom(...EMAILS),
  }),
  // A batch as an import writes it: more rows than the client has suppressions, so the new rows
  // are counted through the indexes instead of read back.
  fc.record({
    kind: fc.constant('insert-batch' as const),
    client: fc.nat(1),
    emails: fc.subarray(EMAILS),
    // Addresses suppressed before the import (as an unsubscribe list already holds them).
    suppressedFirst: fc.subarray(EMAILS),
    statuses: fc.array(fc.constantFrom(...STATUSES), { minLength: 65, maxLength: 90 }),
  }),
  fc.record({ kind: fc.constant('suppress' as const), client: fc.nat(1), email: fc.constantFrom(...EMAILS) }),
  fc.record({
    kind: fc.constant('unsuppress' as const),
    client: fc.nat(1),
    email: fc.constantFrom(...EMAILS),
  }),
)
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never

const contactOf = async (clientId: string, email: string) =>
  await rowOf<{ id: string }>(
    t,
    sql`SELECT id FROM contacts WHERE client_id = ${clientId} AND lower(email) = lower(${email})`,
  )
const insertContact = async (clientId: string, email: string, status: string, now: number) =>
  await runSql(
    t,
    sql`INSERT INTO contacts (id, client_id, client_no, email, status, custom_fields, created_at, updated_at)
        VALUES (${Bun.randomUUIDv7()}, ${clientId}, (SELECT no FROM clients WHERE id = ${clientId}), ${email}, ${status}, '{}', ${now}, ${now})
        ON CONFLICT DO NOTHING`,
  )

let fillers = 0
async function apply(o: Op) {
  const c = clients[o.client]!
  const now = Date.now()
  switch (o.kind) {
    case 'insert-contact': {
      // As every insert path does: the rows, then their search index and count in one pass.
      const highWater = await contactsHighWater(db)
      await insertContact(c, o.upper ? o.email.toUpperCase() : o.email, o.status, now)
      await indexContactsAfter(db, highWater)
      await countUnreachableAfter(db, c, highWater)
      return
    }
    case 'insert-batch': {
      for (const email of o.suppressedFirst) await apply({ kind: 'suppress', client: o.client, email })
      const highWater = await contactsHighWater(db)
      await mapInOrder(o.statuses, async (status, i) => {
        const email = o.emails[i] ?? `filler${++fillers}@x.example`
        await insertContact(c, email, status, now)
      })
      await indexContactsAfter(db, highWater)
      await countUnreachableAfter(db, c, highWater)
      return
    }
    case 'delete-contact':
      await runSql(t, sql`DELETE FROM contacts WHERE client_id = ${c} AND lower(email) = lower(${o.email})`)
      return
    case 'set-status':
      await runSql(
        t,
        sql`UPDATE contacts SET status = ${o.status}${sql.raw(o.withName ? ', first_name = first_name' : '')} WHERE client_id = ${c} AND lower(email) = lower(${o.email})`,
      )
      return
    case 'set-email': {
      const from = await contactOf(c, o.email)
      if (!from || ((await contactOf(c, o.to)) && o.to.toLowerCase() !== o.email.toLowerCase())) return
      await runSql(t, sql`UPDATE contacts SET email = ${o.to} WHERE id = ${from.id}`)
      return
    }
    case 'suppress':
      await runSql(
        t,
        sql`INSERT INTO suppressions (id, client_id, email, source, created_at)
            VALUES (${Bun.randomUUIDv7()}, ${c}, ${o.email.toLowerCase()}, 'api', ${now}) ON CONFLICT DO NOTHING`,
      )
      return
    case 'unsuppress':
      await runSql(
        t,
        sql`DELETE FROM suppressions WHERE client_id = ${c} AND email = ${o.email.toLowerCase()}`,
      )
      return
  }
}

describe('clients.unreachable_count', () => {
  test('equals the count from the rows after any writes to contacts and suppressions', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        for (const c of clients) {
          await runSql(t, sql`DELETE FROM contacts WHERE client_id = ${c}`)
          await runSql(t, sql`DELETE FROM suppressions WHERE client_id = ${c}`)
        }
        expect({
          counter: await mapInOrder(clients, counter),
          counted: await mapInOrder(clients, counted),
        }).toEqual({
          counter: [0, 0],
          counted: [0, 0],
        })
        for (const o of ops) {
          await apply(o)
          await expectExact()
        }
      }),
      { numRuns: RUNS, seed: SEED },
    )
  })

  test("through the API: suppress, a bounce's status, unsuppress, erase", async () => {
    const key = await t.key({ scopes: ['admin:*'], clientId: clients[0]! })
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await t.call(method, path, { key, body })
      expect(r.status).toBe(200)
      return r.body.data
    }
    const ann = await call('POST', '/api/v1/contacts', { email: 'Api.Ann@x.example' })
    const before = await counter(clients[0]!)
    await call('POST', '/api/v1/suppressions', { email: 'api.ann@X.example' })
    expect(await counter(clients[0]!)).toBe(before + 1)
    // A hard bounce marks the contact bounced beside its suppression: still one contact.
    await runSql(t, sql`UPDATE contacts SET status = 'bounced' WHERE id = ${ann.id}`)
    expect(await counter(clients[0]!)).toBe(before + 1)
    await call('DELETE', '/api/v1/suppressions/api.ann@x.example')
    expect(await counter(clients[0]!)).toBe(before + 1)
    await call('PATCH', `/api/v1/contacts/${ann.id}`, { status: 'subscribed' })
    expect(await counter(clients[0]!)).toBe(before)
    await call('POST', '/api/v1/suppressions', { email: 'api.ann@x.example' })
    expect(await counter(clients[0]!)).toBe(before + 1)
    await call('DELETE', `/api/v1/contacts/${ann.id}`)
    expect(await counter(clients[0]!)).toBe(before)
    // A new contact whose address is already suppressed counts from its insert.
    await call('POST', '/api/v1/contacts', { email: 'API.ANN@x.example' })
    expect(await counter(clients[0]!)).toBe(before + 1)
    // So do the suppressed rows of a CSV import (a batch of 100: counted through the indexes).
    const rows = Array.from({ length: 100 }, (_, i) => `csv${i}@x.example`)
    for (const email of rows.slice(0, 3)) await call('POST', '/api/v1/suppressions', { email })
    const upload = await t.call('POST', '/api/v1/contacts/imports', {
      key,
      raw: `email\n${rows.join('\n')}\n`,
      headers: { 'content-type': 'text/csv' },
    })
    expect(upload.status).toBe(200)
    await createImportWorker(t.ctx).drain()
    expect(await counter(clients[0]!)).toBe(before + 4)
    await expectExact()
  })

  // PostgreSQL's migration creates the counter with its triggers on a new database: it has no
  // rows to backfill.
  test.skipIf(DIALECT === 'postgres')("the migration's backfill counts the same", async () => {
    const migration = readFileSync(
      join(import.meta.dir, '../../migrations/sqlite/0030_client_unreachable_count.sql'),
      'utf8',
    )
    const backfill = migration.split('--> statement-breakpoint').at(-1)!
    expect(backfill).toContain('UPDATE clients SET unreachable_count')
    for (const [i, email] of EMAILS.entries())
      await apply({ kind: 'insert-contact', client: i % 2, email, upper: false, status: STATUSES[i]! })
    await apply({ kind: 'suppress', client: 0, email: EMAILS[0]! })
    await apply({ kind: 'suppress', client: 1, email: EMAILS[2]! })
    const kept = await mapInOrder(clients, counter)
    await runSql(t, sql`UPDATE clients SET unreachable_count = -7`)
    await runSql(t, sql.raw(backfill))
    expect(await mapInOrder(clients, counter)).toEqual(kept)
    await expectExact()
  })
})
