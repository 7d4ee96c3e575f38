// Sequences (in process, test clock): N contacts enrolled from a list in one call, the executor
// stepping every first step (each a message in the outbox), the send queue sending them through
// a capture-like provider, then, two days later on the clock, the threaded second step (each
// message planned alone for its In-Reply-To/References). Prints each phase's time and rate, and
// the ratio of the threaded step's send rate to the first's, measured in the same run.
//   flock /tmp/herald-bench.lock bun run test/bench/sequences.ts [--contacts 5000]
import { parseArgs } from 'node:util'
import { createSequenceWorker } from '../../src/queue/sequence-worker'
import { createSendWorker } from '../../src/queue/worker'
import { createTestApp } from '../helpers/app'
import { testClock } from '../helpers/journey'
import { allChannels, recordingProvider } from '../helpers/sender'

const { values } = parseArgs({ options: { contacts: { type: 'string', default: '5000' } } })
const N = Number(values.contacts)
const clock = testClock()
const t = createTestApp({ clock })
const clientId = t.client('Bench')
const key = t.key({ scopes: ['admin:*'], clientId, tier: 'unlimited' })
const call = async (method: string, path: string, body?: unknown) => {
  const r = await t.call(method, path, { key, body })
  if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${r.text}`)
  return r.body.data
}
const list = await call('POST', '/api/v1/lists', { name: 'Prospects' })
const now = clock.now()
t.ctx.sqlite.run(
  `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
   INSERT INTO contacts (id, client_id, client_no, email, first_name, status, custom_fields, created_at, updated_at)
   SELECT printf('01a00000-0000-7000-8000-%012d', i), ?2, (SELECT no FROM clients WHERE id = ?2), 'p' || i || '@example.com', 'P' || i, 'subscribed', '{}', ?3, ?3 FROM n`,
  [N, clientId, now],
)
t.ctx.sqlite.run(
  'INSERT INTO list_members (list_id, contact_id, added_at) SELECT ?1, id, ?2 FROM contacts WHERE client_id = ?3',
  [list.id, now, clientId],
)
const seq = await call('POST', '/api/v1/sequences', {
  name: 'Bench',
  steps: [
    { subject: 'Hello {{ contact.first_name }}', body_text: 'Hi {{ contact.first_name }}' },
    { body_text: 'Following up', delay: 'P2D' },
  ],
})
await call('POST', `/api/v1/sequences/${seq.id}/activate`)
const provider = recordingProvider()
const executor = createSequenceWorker(t.ctx, { budgetMs: 50 })
const sender = createSendWorker(t.ctx, { providers: allChannels(provider), pollMs: 10 })

const timed = async <T>(f: () => Promise<T>) => {
  const t0 = performance.now()
  const r = await f()
  return { ms: performance.now() - t0, r }
}
const enroll = await timed(() => call('POST', `/api/v1/sequences/${seq.id}/enroll`, { list_id: list.id }))
if (enroll.r.enrolled !== N) throw new Error(`enrolled ${enroll.r.enrolled} of ${N}`)
const step1 = await timed(() => executor.drain())
const send1 = await timed(() => sender.drain())
clock.t += 2 * 24 * 3_600_000
const step2 = await timed(() => executor.drain())
const send2 = await timed(() => sender.drain())
const sent = provider.sent.length
if (sent !== 2 * N) throw new Error(`sent ${sent} of ${2 * N}`)
const threaded = provider.sent.at(-1)!
if (threaded.channel !== 'email' || !threaded.headers['In-Reply-To'])
  throw new Error('step 2 is not threaded')

const rate = (ms: number) => Math.round((N / ms) * 1000)
const load = (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')
console.log(`sequences bench: ${N} contacts, load ${load}`)
console.log(`| phase | ms | per second |\n|---|---|---|`)
console.log(`| enroll (one call, from a list) | ${enroll.ms.toFixed(0)} | ${rate(enroll.ms)} |`)
console.log(
  `| step 1 (executor: message queued, run moved on) | ${step1.ms.toFixed(0)} | ${rate(step1.ms)} |`,
)
console.log(`| send 1 (first email: the step's plan) | ${send1.ms.toFixed(0)} | ${rate(send1.ms)} |`)
console.log(`| step 2 (two days later) | ${step2.ms.toFixed(0)} | ${rate(step2.ms)} |`)
console.log(
  `| send 2 (threaded: the step's plan + headers per message) | ${send2.ms.toFixed(0)} | ${rate(send2.ms)} |`,
)
console.log(`threaded send rate / first send rate: ${(send1.ms / send2.ms).toFixed(2)}`)
await sender.stop()
process.exit(0)
