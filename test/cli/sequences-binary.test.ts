import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { useBinary } from '../helpers/binary'
import {
  expectOneMessageIdEach,
  keyedServers,
  killDuring,
  recipientAndSubject,
  sendingAudience,
  smtpWorld,
} from '../helpers/binary-api'
import { until } from '../helpers/receiver'
import { headerOf } from '../helpers/smtp-sink'

// Sequences on the compiled binary, crash safety: kill -9 while a 1,000-contact two-step
// sequence sends over SMTP (through the send threads). No step is lost (every run completes,
// each step queued exactly one message per contact) and none repeats (a resend after a kill
// carries the same Message-ID), and the thread holds across restarts: each second email's
// In-Reply-To is the Message-ID its contact's first email arrived with.

const bin = useBinary('herald-sequences-')
const start = keyedServers(bin, `hrld_${'Sequence0Bin1Key2'.repeat(3)}`)

const CONTACTS = 1_000
const CRASHES = 2

test(`kill -9 ${CRASHES} times during a ${CONTACTS}-contact sequence: no step lost, none repeated, threads intact`, async () => {
  const { dns, sink, env } = await smtpWorld({ HERALD_SEND_RATE: '400' })
  const data = join(bin.work, 'crash')
  let h = await start(data, env)
  const { q, list } = await sendingAudience(h.call, dns, {
    domain: 'sequences.example',
    from: 'hello',
    fromName: 'S',
    contacts: CONTACTS,
    prefix: 's',
    importMs: 15_000,
  })
  const sequence = await h.call('POST', `/api/v1/sequences${q}`, {
    name: 'Crash',
    steps: [
      { subject: 'First {{ contact.email }}', body_text: 'one' },
      { body_text: 'two', delay: 'PT2S' },
    ],
  })
  await h.call('POST', `/api/v1/sequences/${sequence.id}/activate`)
  expect(
    (await h.call('POST', `/api/v1/sequences/${sequence.id}/enroll`, { list_id: list.id })).enrolled,
  ).toBe(CONTACTS)

  const total = CONTACTS * 2
  const reached = () => new Set(sink.received.map(recipientAndSubject)).size
  h = await killDuring(h, () => start(data, env), { crashes: CRASHES, total, reached })
  const completed = async () =>
    (await h.body('GET', `/api/v1/sequences/${sequence.id}/enrollments?status=completed&limit=1`)).pagination
      .total
  await until(async () => (await completed()) === CONTACTS, 60_000, 'every run completed')
  await until(() => reached() >= total, 30_000, 'every message received')

  // No step lost or repeated: each step queued exactly one message per contact. The last sends'
  // outcomes commit a moment after the server took them (in batches every 25 ms): read until
  // they are in, then once more to see nothing is added beyond.
  const sent = async () =>
    ((await h.call('GET', `/api/v1/sequences/${sequence.id}`)).stats as { sent: number }[]).map((x) => x.sent)
  await until(async () => (await sent()).every((n) => n >= CONTACTS), 10_000, 'every send recorded')
  expect(await sent()).toEqual([CONTACTS, CONTACTS])
  // Every contact got each message; a duplicate (a batch in flight at a kill) has the same Message-ID.
  const ids = expectOneMessageIdEach(sink.received, recipientAndSubject, total)
  for (const m of sink.received) {
    if (!headerOf(m.raw, 'Subject')?.startsWith('Re: First')) continue
    expect(headerOf(m.raw, 'In-Reply-To') ?? '').toBe(ids.get(`${m.rcptTo[0]}|First`) ?? 'no first email')
  }
  console.log(
    `sequence crash test: ${CONTACTS} contacts × 2 steps, ${CRASHES} kills, ${sink.received.length - total} duplicate deliveries (same Message-ID)`,
  )
  h.proc.kill('SIGTERM')
  expect(await h.proc.exited).toBe(0)
  await sink.close()
}, 180_000)
