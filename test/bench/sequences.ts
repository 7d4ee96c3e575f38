// Sequences (in process, test clock): N contacts enrolled from a list in one call, the executor
// stepping every first step (each a message in the outbox), the send queue sending them through
// a capture-like provider, then, two days later on the clock, the threaded second step (each
// message planned alone for its In-Reply-To/References). Prints each phase's time and rate, and
// the ratio of the threaded step's send rate to the first's, measured in the same run.
// Then a second sequence enrolls the same N from a segment (every contact) in one call: its
// answer time, the process's RSS (and peak, VmHWM) around it, and how long a writer on another
// connection (test/bench/write-probe-worker.ts, a row every 5 ms) waited meanwhile.
// A third times the chunked call's parts: the count (prepare) and its write transaction.
// --enroll-only stops after the enrollments (for N = 100,000, where the send phases are long).
//   flock /tmp/herald-bench.lock bun run test/bench/sequences.ts [--contacts 5000] [--enroll-only]
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { withActor } from '../../src/context'
import { inTransaction } from '../../src/db/transaction'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { systemActor } from '../../src/services/actors/actor'
import { createFlowWorker } from '../../src/services/flows/worker'
import { enrollInSequence } from '../../src/services/sequences/enroll'
import { enrollSequenceVerb } from '../../src/services/sequences/verbs'
import { adminApi } from '../helpers/admin-api'
import { createTestApp } from '../helpers/app'
import { testClock } from '../helpers/journey'
import { allChannels, recordingProvider } from '../helpers/sender'

const { values } = parseArgs({
  options: {
    contacts: { type: 'string', default: '5000' },
    'enroll-only': { type: 'boolean', default: false },
  },
})
const N = Number(values.contacts)
const clock = testClock()
const t = await createTestApp({ clock })
const clientId = await t.client('Bench')
const key = await t.key({ scopes: ['admin:*'], clientId, tier: 'unlimited' })
const call = await adminApi(t, key)
const list = await call('POST', '/api/v1/lists', { name: 'Prospects' })
const now = clock.now()
await t.ctx.sqlite.run(
  `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
   INSERT INTO contacts (id, client_id, client_no, email, first_name, status, custom_fields, created_at, updated_at)
   SELECT printf('01a00000-0000-7000-8000-%012d', i), ?2, (SELECT no FROM clients WHERE id = ?2), 'p' || i || '@example.com', 'P' || i, 'subscribed', '{}', ?3, ?3 FROM n`,
  [N, clientId, now],
)
await t.ctx.sqlite.run(
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
const executor = createFlowWorker(t.ctx, { budgetMs: 50 })
const sender = createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider), pollMs: 10 })

const rate = (ms: number) => Math.round((N / ms) * 1000)
const timed = async <T>(f: () => Promise<T>) => {
  const t0 = performance.now()
  const r = await f()
  return { ms: performance.now() - t0, r }
}
// Enrolling the N from a segment, with another connection writing a row every 5 ms meanwhile:
// once in one transaction (how it was: the call's limit lifted, through the service) and once
// as the API does it now (counted in the call, entered in chunks by the executor). First steps
// a day out, so the executor only enters; both sequences are archived before the send phases.
/** A line of /proc/self/status in MB: VmRSS now, VmHWM the peak so far. */
const mb = (field: 'VmRSS' | 'VmHWM') =>
  Number(
    new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0,
  ) / 1024
const everyone = await call('POST', '/api/v1/segments', {
  name: 'Everyone',
  rule_groups: [{ match: 'all', rules: [{ field: 'email', operator: 'exists' }] }],
})
async function segmentSequence(name: string) {
  const s = await call('POST', '/api/v1/sequences', {
    name,
    steps: [{ subject: 'Hello', body_text: 'Hi', delay: 'P1D' }],
  })
  await call('POST', `/api/v1/sequences/${s.id}/activate`)
  return s.id as string
}
/** Runs `f` with the probe writing: its result, the probe's figures, the process's RSS around it. */
async function probed<T>(f: () => Promise<T>) {
  const probe = new Worker(new URL('./write-probe-worker.ts', import.meta.url))
  const result = new Promise<{ count: number; max: number; p99: number }>((resolve) => {
    probe.onmessage = (e) => resolve(e.data)
  })
  probe.postMessage({ path: `${t.dataDir}/herald.db` })
  await Bun.sleep(200) // the probe's first writes, before
  Bun.gc(true)
  const before = { before: mb('VmRSS'), hwmBefore: mb('VmHWM') }
  const r = await f()
  const after = { after: mb('VmRSS'), hwmAfter: mb('VmHWM') }
  await Bun.sleep(100)
  probe.postMessage('stop')
  const writer = await result
  probe.terminate()
  return { r, writer, rss: { ...before, ...after } }
}
const entered = async (id: string) =>
  (await t.ctx.sqlite
    .query<{ n: number }, [string]>('SELECT count(*) AS n FROM flow_enrollments WHERE flow_id = ?')
    .get(id))!.n

const oneTxId = await segmentSequence('One transaction')
const bench = withActor(t.ctx, systemActor('bench'), 'bench')
const oneTx = await probed(() =>
  timed(
    async () =>
      await inTransaction(
        t.ctx.sqlite,
        async () =>
          await enrollInSequence(bench, oneTxId, { segment_id: everyone.id }, null, Number.POSITIVE_INFINITY),
      ),
  ),
)
if ((await entered(oneTxId)) !== N)
  throw new Error(`one transaction entered ${await entered(oneTxId)} of ${N}`)
await call('POST', `/api/v1/sequences/${oneTxId}/archive`)

const chunkedId = await segmentSequence('Chunked')
let answerMs = 0
const chunked = await probed(() =>
  timed(async () => {
    const answer = await timed(() =>
      call('POST', `/api/v1/sequences/${chunkedId}/enroll`, { segment_id: everyone.id }),
    )
    answerMs = answer.ms
    if (answer.r.enrolled !== N) throw new Error(`segment enrolled ${answer.r.enrolled} of ${N}`)
    await executor.drain()
  }),
)
if ((await entered(chunkedId)) !== N) throw new Error(`chunks entered ${await entered(chunkedId)} of ${N}`)
await call('POST', `/api/v1/sequences/${chunkedId}/archive`)

// The chunked call's parts, through the verb as invoke runs it: the audience count (prepare,
// before the write transaction) and the IMMEDIATE transaction itself (the write lock held).
const splitId = await segmentSequence('Split')
const splitInput = { id: splitId, segment_id: everyone.id }
const counting = await timed(() => enrollSequenceVerb.prepare!(bench, splitInput, {}))
const writing = await timed(
  async () =>
    await inTransaction(t.ctx.sqlite, () => enrollSequenceVerb.run(bench, splitInput, counting.r, {})),
)
if (writing.r.enrolled !== N) throw new Error(`split enrolled ${writing.r.enrolled} of ${N}`)
await call('POST', `/api/v1/sequences/${splitId}/archive`)

const enroll = await timed(() => call('POST', `/api/v1/sequences/${seq.id}/enroll`, { list_id: list.id }))
if (enroll.r.enrolled !== N) throw new Error(`enrolled ${enroll.r.enrolled} of ${N}`)
const load0 = (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')
const ms = (x: number) => `${x.toFixed(0)} ms`
type Probed = Awaited<ReturnType<typeof probed<unknown>>>
const rssOf = (p: Probed) =>
  `${p.rss.before.toFixed(0)} → ${p.rss.after.toFixed(0)} MB (peak ${p.rss.hwmBefore.toFixed(0)} → ${p.rss.hwmAfter.toFixed(0)} MB)`
const writerOf = (p: Probed) =>
  `max ${ms(p.writer.max)}, p99 ${p.writer.p99.toFixed(1)} ms (${p.writer.count} writes)`
const enrollTable = [
  `| one transaction (before) | ${ms(oneTx.r.ms)} | ${ms(oneTx.r.ms)} | ${writerOf(oneTx)} | ${rssOf(oneTx)} |`,
  `| chunks (now) | ${ms(answerMs)} | ${ms(chunked.r.ms)} | ${writerOf(chunked)} | ${rssOf(chunked)} |`,
]
const enrollHeader = `| enroll ${N} from a segment | answer | all entered | another connection's writes meanwhile | RSS |\n|---|---|---|---|---|`
const splitLine = `chunked call: audience counted before the write transaction in ${ms(counting.ms)}; write transaction (lock held) ${writing.ms.toFixed(1)} ms`
if (values['enroll-only']) {
  console.log(`sequences bench (enroll only): ${N} contacts, load ${load0}`)
  console.log(`${enrollHeader}\n${enrollTable.join('\n')}`)
  console.log(splitLine)
  console.log(
    `writer stall max, chunks / one transaction: ${(chunked.writer.max / oneTx.writer.max).toFixed(2)}`,
  )
  await sender.stop()
  process.exit(0)
}
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

const load = (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')
console.log(`sequences bench: ${N} contacts, load ${load}`)
console.log(`| phase | ms | per second |\n|---|---|---|`)
console.log(`| enroll (one call, from a list: the answer) | ${enroll.ms.toFixed(0)} | ${rate(enroll.ms)} |`)
console.log(
  `| step 1 (executor: runs entered in chunks, message queued, run moved on) | ${step1.ms.toFixed(0)} | ${rate(step1.ms)} |`,
)
console.log(`| send 1 (first email: the step's plan) | ${send1.ms.toFixed(0)} | ${rate(send1.ms)} |`)
console.log(`| step 2 (two days later) | ${step2.ms.toFixed(0)} | ${rate(step2.ms)} |`)
console.log(
  `| send 2 (threaded: the step's plan + headers per message) | ${send2.ms.toFixed(0)} | ${rate(send2.ms)} |`,
)
console.log(`threaded send rate / first send rate: ${(send1.ms / send2.ms).toFixed(2)}`)
console.log(`\nenrollments (load ${load0}):\n${enrollHeader}\n${enrollTable.join('\n')}`)
console.log(splitLine)
console.log(
  `writer stall max, chunks / one transaction: ${(chunked.writer.max / oneTx.writer.max).toFixed(2)}`,
)
await sender.stop()
process.exit(0)
