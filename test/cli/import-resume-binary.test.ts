import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { useBinary } from '../helpers/binary'
import { keyedServers } from '../helpers/binary-api'
import { until } from '../helpers/receiver'

// An import interrupted by kill -9 on the compiled binary resumes from its last committed batch:
// after the restart it completes, every row of the file is counted once (the rows the first run
// inserted are not reported again as skipped), and every contact is there once, on the list.

const bin = useBinary('herald-import-resume-')
const serve = keyedServers(bin, `hrld_${'Import0Resume1Key2'.repeat(3)}`)
const ROWS = 200_000

test(`kill -9 halfway through a ${ROWS.toLocaleString('en-US')}-row import: it resumes, each row counted once`, async () => {
  const data = join(bin.work, 'data')
  let h = await serve(data, {})
  const clientId = ((await h.call('GET', '/api/v1/clients')) as { id: string }[])[0]!.id
  const q = `?client_id=${clientId}`
  const list = await h.call('POST', `/api/v1/lists${q}`, { name: 'Imported' })
  const csv = [
    'email,first_name,company',
    ...Array.from({ length: ROWS }, (_, i) => `row${i}@crm.example,Row ${i},Acme ${i % 37}`),
  ].join('\n')
  const job = await h.call('POST', `/api/v1/contacts/imports${q}&list_id=${list.id}`, csv, 'text/csv')
  const progress = async () =>
    (await h.call('GET', `/api/v1/contacts/imports/${job.id}`)) as {
      status: string
      processed: number
      inserted: number
      skipped: number
    }
  await until(async () => (await progress()).processed >= ROWS / 2, 60_000, 'half the rows imported')
  const atKill = await progress()
  h.proc.kill('SIGKILL')
  await h.proc.exited
  // The kill came mid-import: what the first run had committed is less than the file.
  expect(atKill.status).toBe('running')
  expect(atKill.processed).toBeLessThan(ROWS)
  h = await serve(data, {})
  await until(async () => (await progress()).status === 'completed', 60_000, 'import completed')
  const done = await progress()
  expect(done).toMatchObject({ processed: ROWS, inserted: ROWS, skipped: 0 })
  const listed = await h.call('GET', `/api/v1/lists/${list.id}`)
  expect(listed.member_count).toBe(ROWS)
  const contacts = (await h.body('GET', `/api/v1/contacts${q}&limit=1`)) as { pagination: { total: number } }
  expect(contacts.pagination.total).toBe(ROWS)
  h.proc.kill('SIGTERM')
  expect(await h.proc.exited).toBe(0)
}, 180_000)
