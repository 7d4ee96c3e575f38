import { expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { claimNextImport, ImportTakenOver } from '../../../src/db/imports'
import { rawRows } from '../../../src/db/raw'
import { IMPORT_BATCH } from '../../../src/services/imports/parse-protocol'
import { processImport } from '../../../src/services/imports/process'
import { createImportWorker } from '../../../src/services/imports/runner'
import { createTestApp } from '../../helpers/app'

// An import interrupted after some committed batches (a crash: the process dies between batches)
// goes on from its last committed batch once its lease runs out, not before: until then it may be
// another process's import under way. Its report counts each row of the file once: the rows the
// first run inserted are not counted again as skipped.

let now = Date.parse('2026-03-02T10:00:00Z')
const t = await createTestApp({ clock: { now: () => now } })
const ROWS = IMPORT_BATCH * 2 + 5_000
const LEASE = t.ctx.config.importLeaseMs
/** Uploads the CSV lines as a client's import; its id. */
async function upload(key: string, lines: string[]): Promise<string> {
  const res = await t.call('POST', '/api/v1/contacts/imports', {
    key,
    raw: `${lines.join('\n')}\n`,
    headers: { 'content-type': 'text/csv' },
  })
  expect(res.status).toBe(200)
  return res.body.data.id as string
}
const storedContacts = async (client: string) =>
  (
    await rawRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT CAST(count(*) AS INTEGER) AS n FROM contacts WHERE client_id = ${client}`,
    )
  )[0]!.n

test('an import crashed after two batches resumes from the third: every row counted once', async () => {
  const client = await t.client('Importer')
  const key = await t.key({ scopes: ['admin:*'], clientId: client })
  // Two contacts exist already: their rows are skipped, in the second batch and in the last.
  for (const email of [`r${IMPORT_BATCH + 7}@x.io`, `r${ROWS - 3}@x.io`])
    expect((await t.call('POST', '/api/v1/contacts', { key, body: { email } })).status).toBe(200)
  const lines = ['email,first_name']
  // Every 1000th row is refused (no valid email): 45 refused rows, in every batch.
  for (let i = 1; i <= ROWS; i++) lines.push(i % 1000 === 0 ? `broken-${i},Bad` : `r${i}@x.io,R${i}`)
  const id = await upload(key, lines)

  // The first run (of "another process") dies right after its second batch committed, which
  // renewed its lease.
  const job = (await claimNextImport(t.ctx.db, now, now + LEASE))!
  let batches = 0
  const crash: Promise<unknown> = processImport(
    t.ctx,
    { ...job, lease: { ms: LEASE, until: now + LEASE } },
    () => now,
    () => {
      if (++batches === 2) throw new Error('killed')
    },
  )
  expect(crash).rejects.toThrow('killed')
  await crash.catch(() => {})
  const mid = (await t.call('GET', `/api/v1/contacts/imports/${id}`, { key })).body.data
  expect(mid).toMatchObject({ status: 'running', processed: IMPORT_BATCH * 2 })

  // A worker starting while the lease holds leaves the job alone, and says when to look again.
  const worker = createImportWorker(t.ctx)
  now += LEASE - 1
  expect(await worker.runOnce()).toEqual({ worked: false, nextAt: now + 1 })
  expect((await t.call('GET', `/api/v1/contacts/imports/${id}`, { key })).body.data).toMatchObject({
    status: 'running',
    processed: IMPORT_BATCH * 2,
  })

  // Once the lease has run out, the worker picks the running job up and finishes it.
  now += 1
  await worker.drain()
  const done = (await t.call('GET', `/api/v1/contacts/imports/${id}`, { key })).body.data
  const refused = Math.floor(ROWS / 1000)
  expect(done).toMatchObject({
    status: 'completed',
    processed: ROWS,
    inserted: ROWS - refused - 2,
    updated: 0,
    skipped: refused + 2,
  })
  expect(done.inserted + done.skipped).toBe(ROWS)
  // Each refused row is reported once, in file order.
  expect(done.errors.map((e: { row: number }) => e.row)).toEqual(
    Array.from({ length: refused }, (_, k) => (k + 1) * 1000 + 1),
  )
  expect(await storedContacts(client)).toBe(ROWS - refused)
}, 120_000)

// A run that stalls between two batches (a paused VM, a database that stopped answering) until its
// lease has run out, while another process takes the job over, goes on from the last committed
// batch and completes it: when the stalled run wakes, its next batch finds the lease gone, rolls
// back and stops, and the job keeps the other process's report.
test('a run that stalled past its lease writes nothing once another process took the import over', async () => {
  const client = await t.client('Stalled importer')
  const key = await t.key({ scopes: ['admin:*'], clientId: client })
  const lines = ['email,first_name']
  for (let i = 1; i <= ROWS; i++) lines.push(`s${i}@x.io,S${i}`)
  const id = await upload(key, lines)
  const report = async () => (await t.call('GET', `/api/v1/contacts/imports/${id}`, { key })).body.data

  // The first run commits its first batch, then stalls.
  const job = (await claimNextImport(t.ctx.db, now, now + LEASE))!
  const stall = Promise.withResolvers<void>()
  const stalled = Promise.withResolvers<void>()
  const first = processImport(
    t.ctx,
    { ...job, lease: { ms: LEASE, until: now + LEASE } },
    () => now,
    () => {
      stalled.resolve()
      return stall.promise
    },
  )
  first.catch(() => {})
  await stalled.promise
  expect(await report()).toMatchObject({ status: 'running', processed: IMPORT_BATCH })

  // Its lease runs out: another process's worker takes the job over and completes it.
  now += LEASE
  await createImportWorker(t.ctx).drain()
  const done = await report()
  expect(done).toMatchObject({ status: 'completed', processed: ROWS, inserted: ROWS, skipped: 0 })

  // The stalled run wakes: its next batch is rolled back and it stops, changing nothing.
  stall.resolve()
  await expect(first).rejects.toBeInstanceOf(ImportTakenOver)
  expect(await report()).toEqual(done)
  expect(await storedContacts(client)).toBe(ROWS)
}, 120_000)
