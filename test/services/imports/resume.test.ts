import { expect, test } from 'bun:test'
import { claimNextImport } from '../../../src/db/imports'
import { IMPORT_BATCH } from '../../../src/services/imports/parse-protocol'
import { processImport } from '../../../src/services/imports/process'
import { createImportWorker } from '../../../src/services/imports/runner'
import { createTestApp } from '../../helpers/app'

// An import interrupted after some committed batches (a crash: the process dies between batches)
// goes on from its last committed batch when the worker next runs it. Its report counts each row
// of the file once: the rows the first run inserted are not counted again as skipped.

const t = await createTestApp()
const ROWS = IMPORT_BATCH * 2 + 5_000

test('an import crashed after two batches resumes from the third: every row counted once', async () => {
  const client = await t.client('Importer')
  const key = await t.key({ scopes: ['admin:*'], clientId: client })
  // Two contacts exist already: their rows are skipped, in the second batch and in the last.
  for (const email of [`r${IMPORT_BATCH + 7}@x.io`, `r${ROWS - 3}@x.io`])
    expect((await t.call('POST', '/api/v1/contacts', { key, body: { email } })).status).toBe(200)
  const lines = ['email,first_name']
  // Every 1000th row is refused (no valid email): 45 refused rows, in every batch.
  for (let i = 1; i <= ROWS; i++) lines.push(i % 1000 === 0 ? `broken-${i},Bad` : `r${i}@x.io,R${i}`)
  const res = await t.call('POST', '/api/v1/contacts/imports', {
    key,
    raw: `${lines.join('\n')}\n`,
    headers: { 'content-type': 'text/csv' },
  })
  expect(res.status).toBe(200)
  const id = res.body.data.id as string

  // The first run dies right after its second batch committed.
  const job = (await claimNextImport(t.ctx.db, Date.now()))!
  let batches = 0
  const crash: Promise<unknown> = processImport(t.ctx, job, Date.now, () => {
    if (++batches === 2) throw new Error('killed')
  })
  expect(crash).rejects.toThrow('killed')
  await crash.catch(() => {})
  const mid = (await t.call('GET', `/api/v1/contacts/imports/${id}`, { key })).body.data
  expect(mid).toMatchObject({ status: 'running', processed: IMPORT_BATCH * 2 })

  // The worker (as at the next start) picks the running job up and finishes it.
  await createImportWorker(t.ctx).drain()
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
  const stored = (await t.ctx.sqlite
    .query<{ n: number }, [string]>('SELECT count(*) AS n FROM contacts WHERE client_id = ?')
    .get(client))!.n
  expect(stored).toBe(ROWS - refused)
}, 120_000)
