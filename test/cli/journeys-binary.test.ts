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

// Journeys on the compiled binary: an end-to-end journey with a real two-second wait and capture
// sends, and crash safety — kill -9 three times while a 2,000-contact journey sends over SMTP:
// no step is lost (every contact ends, each send node queued exactly one message per contact)
// and none repeats (a resend after the kill carries the same Message-ID).

const bin = useBinary('herald-journeys-')
const start = keyedServers(bin, `hrld_${'Journey0Bin1Key2'.repeat(3)}`)

test('trigger → send → wait PT2S → condition → send / exit, end to end on the binary (capture)', async () => {
  const h = await start(join(bin.work, 'e2e'), { HERALD_EMAIL_PROVIDER: 'capture' })
  const clients = (await h.call('GET', '/api/v1/clients')) as { id: string }[]
  const q = `?client_id=${clients[0]!.id}`
  const hello = await h.call('POST', `/api/v1/templates${q}`, {
    name: 'Hello',
    subject: 'Hello {{ contact.first_name }}',
    body_text: 'Hi',
  })
  const offer = await h.call('POST', `/api/v1/templates${q}`, {
    name: 'Offer',
    subject: 'Pro offer',
    body_text: 'For pros',
  })
  const pro = await h.call('POST', `/api/v1/contacts${q}`, {
    email: 'pro@example.com',
    first_name: 'Pat',
    custom_fields: { plan: 'pro' },
  })
  const free = await h.call('POST', `/api/v1/contacts${q}`, {
    email: 'free@example.com',
    first_name: 'Fay',
    custom_fields: { plan: 'free' },
  })
  const journey = await h.call('POST', `/api/v1/journeys${q}`, {
    name: 'E2E',
    nodes: [
      { id: 't', type: 'trigger', trigger: 'manual', next: 's1' },
      { id: 's1', type: 'send', template_id: hello.id, next: 'w' },
      { id: 'w', type: 'wait', duration: 'PT2S', next: 'c' },
      {
        id: 'c',
        type: 'condition',
        rule_groups: [{ match: 'all', rules: [{ field: 'custom.plan', operator: 'eq', value: 'pro' }] }],
        yes: 's2',
        no: 'x',
      },
      { id: 's2', type: 'send', template_id: offer.id, next: 'x' },
      { id: 'x', type: 'exit' },
    ],
  })
  await h.call('POST', `/api/v1/journeys/${journey.id}/activate`)
  const enrolledAt = Date.now()
  expect(
    await h.call('POST', `/api/v1/journeys/${journey.id}/enroll`, { contact_ids: [pro.id, free.id] }),
  ).toEqual({ journey_id: journey.id, enrolled: 2, skipped: 0 })
  const enrollments = async () =>
    (await h.body('GET', `/api/v1/journeys/${journey.id}/enrollments`)).data as {
      contact_id: string
      status: string
      history: { node: string; at: string; message_id?: string }[]
    }[]
  await until(
    async () => (await enrollments()).every((e) => e.status === 'completed'),
    15_000,
    'both completed',
  )
  const byContact = new Map((await enrollments()).map((e) => [e.contact_id, e]))
  expect(byContact.get(pro.id)!.history.map((x) => x.node)).toEqual(['t', 's1', 'w', 'c', 's2', 'x'])
  expect(byContact.get(free.id)!.history.map((x) => x.node)).toEqual(['t', 's1', 'w', 'c', 'x'])
  // The condition ran after the wait: at least two seconds after the send.
  const proPath = byContact.get(pro.id)!.history
  expect(Date.parse(proPath[3]!.at) - Date.parse(proPath[1]!.at)).toBeGreaterThanOrEqual(2000)
  expect(Date.parse(proPath[3]!.at)).toBeGreaterThanOrEqual(enrolledAt + 2000 - 5)
  await until(
    async () =>
      (await h.body('GET', `/api/v1/messages?journey_id=${journey.id}`)).data.every(
        (m: { status: string }) => m.status === 'delivered',
      ),
    5000,
    'delivered',
  )
  const msgs = (await h.body('GET', `/api/v1/messages?journey_id=${journey.id}`)).data as {
    id: string
    to: string
    journey_id: string
    campaign_id: string | null
  }[]
  expect(msgs.map((m) => m.to).sort()).toEqual(['free@example.com', 'pro@example.com', 'pro@example.com'])
  expect(msgs.every((m) => m.journey_id === journey.id && m.campaign_id === null)).toBe(true)
  const captured = await h.call('GET', `/api/v1/messages/${proPath[4]!.message_id}`)
  expect(captured.subject).toBe('Pro offer')
  const stats = await h.call('GET', `/api/v1/journeys/${journey.id}/stats`)
  expect(stats).toMatchObject({ entered: 2, completed: 2, active: 0 })
  h.proc.kill('SIGTERM')
  expect(await h.proc.exited).toBe(0)
}, 60_000)

const CONTACTS = 2_000
const CRASHES = 3

test(`kill -9 ${CRASHES} times during a ${CONTACTS}-contact journey: no step lost, none repeated, resends keep the Message-ID`, async () => {
  const { dns, sink, env } = await smtpWorld({ HERALD_SEND_RATE: '600' })
  const data = join(bin.work, 'crash')
  let h = await start(data, env)
  const { q, list } = await sendingAudience(h.call, dns, {
    domain: 'journeys.example',
    from: 'hello',
    fromName: 'J',
    contacts: CONTACTS,
    prefix: 'c',
    importMs: 15_000,
  })
  const segment = await h.call('POST', `/api/v1/segments${q}`, {
    name: 'All',
    rule_groups: [{ match: 'all', rules: [{ field: 'list', operator: 'in', value: [list.id] }] }],
  })
  const first = await h.call('POST', `/api/v1/templates${q}`, {
    name: 'First',
    subject: 'First {{ contact.email }}',
    body_text: 'one',
  })
  const second = await h.call('POST', `/api/v1/templates${q}`, {
    name: 'Second',
    subject: 'Second {{ contact.email }}',
    body_text: 'two',
  })
  const journey = await h.call('POST', `/api/v1/journeys${q}`, {
    name: 'Crash',
    nodes: [
      { id: 't', type: 'trigger', trigger: 'manual', next: 's1' },
      { id: 's1', type: 'send', template_id: first.id, next: 'w' },
      { id: 'w', type: 'wait', duration: 'PT2S', next: 's2' },
      { id: 's2', type: 'send', template_id: second.id, next: 'x' },
      { id: 'x', type: 'exit' },
    ],
  })
  await h.call('POST', `/api/v1/journeys/${journey.id}/activate`)
  expect(
    (await h.call('POST', `/api/v1/journeys/${journey.id}/enroll`, { segment_id: segment.id })).enrolled,
  ).toBe(CONTACTS)

  const total = CONTACTS * 2
  const reached = () => new Set(sink.received.map(recipientAndSubject)).size
  h = await killDuring(h, () => start(data, env), { crashes: CRASHES, total, reached })
  const stats = async () => h.call('GET', `/api/v1/journeys/${journey.id}/stats`)
  await until(async () => (await stats()).completed === CONTACTS, 60_000, 'every contact completed')
  await until(() => reached() >= total, 30_000, 'every message received')

  // No step lost or repeated: each send node queued exactly one message per contact. The last
  // sends' outcomes commit a moment after the server took them: read until they are in, then
  // once more to see nothing is added beyond.
  const sentOf = (st: { nodes: { id: string; messages: { sent: number } }[] }) =>
    ['s1', 's2'].map((id) => st.nodes.find((x) => x.id === id)!.messages.sent)
  await until(async () => sentOf(await stats()).every((n) => n >= CONTACTS), 10_000, 'every send recorded')
  const s = await stats()
  expect(s).toMatchObject({ entered: CONTACTS, completed: CONTACTS, active: 0, exited: 0 })
  for (const node of ['s1', 's2']) {
    const n = s.nodes.find((x: { id: string }) => x.id === node)
    expect(n.passed).toBe(CONTACTS)
    expect(n.messages.sent).toBe(CONTACTS)
  }
  // Every contact got each message; a duplicate (the batch in flight at a kill) has the same Message-ID.
  expectOneMessageIdEach(sink.received, recipientAndSubject, total)
  console.log(
    `journey crash test: ${CONTACTS} contacts × 2 sends, ${CRASHES} kills, ${sink.received.length - total} duplicate deliveries (same Message-ID)`,
  )
  h.proc.kill('SIGTERM')
  expect(await h.proc.exited).toBe(0)
  await sink.close()
}, 180_000)
