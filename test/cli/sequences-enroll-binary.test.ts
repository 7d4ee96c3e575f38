import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { storeOf, useBinary } from '../helpers/binary'
import { keyedServers } from '../helpers/binary-api'
import { until } from '../helpers/receiver'

// A large sequence enrollment on the compiled binary, crash safety: the enroll call answers with
// the count, the sequences worker enters the contacts in chunks, and a kill -9 midway loses and
// doubles nothing: after a restart the job carries on from its cursor until every contact is in
// exactly once. The first step is a day out, so only entering happens.

const bin = useBinary('herald-seq-enroll-')
const start = keyedServers(bin, `hrld_${'SeqEnroll0Bin1Key2'.repeat(3)}`)

const CONTACTS = 60_000

test(`kill -9 while ${CONTACTS} contacts enter a sequence in chunks: each enters once`, async () => {
  const data = join(bin.work, 'crash')
  let h = await start(data, {})
  const clients = (await h.call('GET', '/api/v1/clients')) as { id: string }[]
  const q = `?client_id=${clients[0]!.id}`
  const csv = ['email', ...Array.from({ length: CONTACTS }, (_, i) => `e${i}@inbox.example`)].join('\n')
  const job = await h.call('POST', `/api/v1/contacts/imports${q}`, csv, 'text/csv')
  await until(
    async () => (await h.call('GET', `/api/v1/contacts/imports/${job.id}`)).status === 'completed',
    60_000,
    'the import',
  )
  const segment = await h.call('POST', `/api/v1/segments${q}`, {
    name: 'Everyone',
    rule_groups: [{ match: 'all', rules: [{ field: 'email', operator: 'exists' }] }],
  })
  const sequence = await h.call('POST', `/api/v1/sequences${q}`, {
    name: 'Big',
    steps: [{ subject: 'Hello', body_text: 'Hi', delay: 'P1D' }],
  })
  await h.call('POST', `/api/v1/sequences/${sequence.id}/activate`)
  const entered = async () =>
    (await h.body('GET', `/api/v1/sequences/${sequence.id}/enrollments?limit=1`)).pagination.total as number

  const answer = await h.call('POST', `/api/v1/sequences/${sequence.id}/enroll`, { segment_id: segment.id })
  expect(answer.enrolled).toBe(CONTACTS)
  // Killed as soon as some have entered.
  await until(async () => (await entered()) > 0, 30_000, 'the first chunk')
  h.proc.kill('SIGKILL')
  await h.proc.exited

  // Midway: part entered, the job still there with its cursor.
  const store = storeOf(data)
  const atKill = (
    await store<{
      n: number
    }>`SELECT CAST(count(*) AS INTEGER) AS n FROM flow_enrollments WHERE flow_id = ${sequence.id}`
  )[0]!.n
  const pending = await store<{ cursor: number; max: number }>`
    SELECT CAST(cursor_seq AS INTEGER) AS cursor, CAST(max_contact_seq AS INTEGER) AS max FROM flow_enroll_jobs`
  expect(atKill).toBeGreaterThan(0)
  expect(atKill).toBeLessThan(CONTACTS)
  expect(pending).toHaveLength(1)
  expect(pending[0]!.cursor).toBeGreaterThan(0)

  h = await start(data, {})
  await until(async () => (await entered()) === CONTACTS, 60_000, 'every contact entered')
  h.proc.kill('SIGTERM')
  expect(await h.proc.exited).toBe(0)
  const [runs] = await store<{ n: number; contacts: number }>`
    SELECT CAST(count(*) AS INTEGER) AS n, CAST(count(DISTINCT contact_id) AS INTEGER) AS contacts
    FROM flow_enrollments WHERE flow_id = ${sequence.id}`
  const jobsLeft = (await store`SELECT 1 FROM flow_enroll_jobs`).length
  expect(runs).toEqual({ n: CONTACTS, contacts: CONTACTS })
  expect(jobsLeft).toBe(0)
  console.log(`sequence enroll crash test: ${atKill} of ${CONTACTS} entered at the kill`)
}, 180_000)
