import { afterAll, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { simpleParser } from 'mailparser'
import { type MessageRow, messages } from '../../../src/db/schema'
import { mapInOrder } from '../../../src/lib/in-order'
import {
  findMessage,
  recordBounce,
  recordComplaint,
  recordReply,
  unsubscribeViaMessage,
} from '../../../src/services/messages/activity'
import { rowOf, runSql } from '../../helpers/raw-sql'
import { sequenceApp } from '../../helpers/sequence'

// The sequence executor on the test clock: outreach of days runs in milliseconds, each step
// driven by the workers pass by pass, email over real SMTP (read back with mailparser). The
// negative checks (not yet sent) move the clock to just before the due time.

const s = await sequenceApp()
const { t, clock } = s
afterAll(() => s.close())
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
let n = 0
const person = (extra: Record<string, unknown> = {}) => s.contact(`p${n++}@example.com`, extra)
const later = async (ms: number) => {
  clock.t += ms
  await s.settle()
}
const messagesOf = async (sequenceId: string, contactId?: string): Promise<MessageRow[]> =>
  (
    await t.ctx.db.select().from(messages).where(eq(messages.sourceId, sequenceId)).orderBy(messages.seq)
  ).filter((m) => contactId === undefined || m.contactId === contactId)
/** What the SMTP sink received for this address, parsed, in order. */
const mailTo = (address: string) =>
  Promise.all(s.sink.received.filter((r) => r.rcptTo.includes(address)).map((r) => simpleParser(r.raw)))
const three = {
  steps: [
    {
      subject: 'Intro for {{ contact.first_name }}',
      body_text: 'Hi {{ contact.first_name }}',
      delay: 'PT0S',
    },
    { body_text: 'Following up', delay: 'P2D' },
    { body_text: 'Last note', delay: { days: 3 } },
  ],
}

describe('three email steps in one thread', () => {
  test('each after its delay; the 2nd and 3rd reply to the earlier ones (In-Reply-To, References, Re:)', async () => {
    const c = await person()
    const email = `p${n - 1}@example.com`
    const id = await s.sequence(three)
    const enrolled = await s.enroll(id, [c])
    expect(enrolled).toMatchObject({ enrolled: 1, skipped: 0 })
    await s.settle()
    let mail = await mailTo(email)
    expect(mail).toHaveLength(1)
    expect(mail[0]!.subject).toBe(`Intro for p${n - 1}`)
    expect(mail[0]!.inReplyTo).toBeUndefined()
    const [m1] = await messagesOf(id, c)
    // SMTP 250 is delivered (DESIGN §8).
    expect(m1).toMatchObject({ sourceKind: 'sequence', sourceId: id, campaignId: null, status: 'delivered' })
    expect(mail[0]!.messageId).toStartWith(`<${m1!.id}@`)
    // Its events name the sequence (campaign_id null), in webhook form.
    const delivered = (await rowOf<{ data: string; sequence_id: string }>(
      t,
      sql`SELECT CAST(data AS TEXT) AS data, sequence_id FROM events WHERE message_id = ${m1!.id} AND type = 'email.delivered'`,
    ))!
    expect(delivered.sequence_id).toBe(id)
    expect(JSON.parse(delivered.data)).toMatchObject({
      campaign_id: null,
      sequence_id: `seq_${id.replaceAll('-', '')}`,
    })
    let run = await s.runOf(id, c)
    expect(run).toMatchObject({ status: 'active', current_step: 0 })
    expect(run.history).toEqual([
      { step: 0, message_id: m1!.id, channel: 'email', at: new Date(clock.t).toISOString() },
    ])
    expect(run.next_run_at).toBe(new Date(clock.t + 2 * DAY).toISOString())

    // One minute before the delay is over nothing goes; at the due time the 2nd does.
    await later(2 * DAY - MINUTE)
    expect(await mailTo(email)).toHaveLength(1)
    await later(MINUTE)
    mail = await mailTo(email)
    expect(mail).toHaveLength(2)
    expect(mail[1]!.subject).toBe(`Re: Intro for p${n - 1}`)
    expect(mail[1]!.inReplyTo).toBe(mail[0]!.messageId)
    expect(mail[1]!.references).toBe(mail[0]!.messageId)
    expect(mail[1]!.headerLines.some((h) => h.key === 'list-unsubscribe')).toBe(true)

    await later(3 * DAY - MINUTE)
    expect(await mailTo(email)).toHaveLength(2)
    await later(MINUTE)
    mail = await mailTo(email)
    expect(mail).toHaveLength(3)
    expect(mail[2]!.subject).toBe(`Re: Intro for p${n - 1}`)
    expect(mail[2]!.inReplyTo).toBe(mail[1]!.messageId)
    expect(mail[2]!.references).toEqual([mail[0]!.messageId!, mail[1]!.messageId!])

    run = await s.runOf(id, c)
    expect(run).toMatchObject({ status: 'completed', current_step: 2, next_run_at: null, stop_reason: null })
    expect(run.history.map((h) => h.step)).toEqual([0, 1, 2])
    // GET /messages?sequence_id= lists them; GET /messages/{id} shows the thread headers.
    const api = (await s.call('GET', `/api/v1/messages?sequence_id=${id}`)) as Record<string, unknown>[]
    expect(api.map((x) => x.id).sort()).toEqual(run.history.map((h) => h.message_id).sort())
    expect(api.every((x) => x.sequence_id === id && x.campaign_id === null)).toBe(true)
    const third = await s.call('GET', `/api/v1/messages/${run.history[2]!.message_id}`)
    expect(third.headers['in-reply-to']).toBe(mail[1]!.messageId)
    expect(third.subject).toBe(`Re: Intro for p${n - 1}`)
    const seq = await s.call('GET', `/api/v1/sequences/${id}`)
    expect(seq.stats.map((x: { sent: number }) => x.sent)).toEqual([1, 1, 1])
  })

  test('a step with its own subject or template keeps it; sms steps go to the phone, outside the thread', async () => {
    const c = await person({ phone: '+14155550123' })
    const id = await s.sequence({
      steps: [
        { subject: 'Hello', body_text: 'x' },
        { channel: 'sms', body_text: 'Texting you, {{ contact.first_name }}', delay: 'PT1H' },
        { template_id: s.templates.nudge.id, delay: 'PT1H' },
      ],
    })
    await s.enroll(id, [c])
    await s.settle()
    await later(HOUR)
    await later(HOUR)
    const sms = s.recording.sent.filter((m) => m.channel === 'sms' && m.to === '+14155550123')
    expect(sms).toHaveLength(1)
    const mail = await mailTo(`p${n - 1}@example.com`)
    expect(mail.map((m) => m.subject)).toEqual(['Hello', 'Still there?'])
    expect(mail[1]!.inReplyTo).toBe(mail[0]!.messageId)
    expect((await s.runOf(id, c)).status).toBe('completed')
  })
})

describe('sender', () => {
  test("every email of a run comes from the sequence's sender; the thread's Message-IDs are on its domain", async () => {
    const sender = await s.call('POST', '/api/v1/senders', {
      from_email: 'sam@outreach.example',
      from_name: 'Sam',
    })
    const c = await person()
    const id = await s.sequence({ ...three, sender_id: sender.id })
    await s.enroll(id, [c])
    await s.settle()
    await later(2 * DAY)
    const mail = await mailTo(`p${n - 1}@example.com`)
    expect(mail.map((m) => m.from?.value[0]?.address)).toEqual([
      'sam@outreach.example',
      'sam@outreach.example',
    ])
    expect(mail[0]!.messageId).toEndWith('@outreach.example>')
    expect(mail[1]!.inReplyTo).toBe(mail[0]!.messageId)
  })
})

describe('stops', () => {
  test('a reply stops the run (stop_on_reply default true); the others go on', async () => {
    const a = await person()
    const b = await person()
    const id = await s.sequence(three)
    await s.enroll(id, [a, b])
    await s.settle()
    const [ma] = await messagesOf(id, a)
    await recordReply(
      t.ctx,
      (await findMessage(t.ctx, ma!.id))!,
      { from: 'a@example.com', subject: 'Re: hi', snippet: 'no thanks', text: 'no thanks' },
      clock.t,
    )
    const stopped = await s.runOf(id, a)
    expect(stopped).toMatchObject({ status: 'stopped', stop_reason: 'replied', next_run_at: null })
    await later(2 * DAY)
    expect(await messagesOf(id, a)).toHaveLength(1)
    expect(await messagesOf(id, b)).toHaveLength(2)
    const seq = await s.call('GET', `/api/v1/sequences/${id}`)
    expect(seq.stats[0]).toMatchObject({ sent: 2, replied: 1 })
  })

  test('with stop_on_reply false a reply does not stop it', async () => {
    const a = await person()
    const id = await s.sequence({ ...three, settings: { stop_on_reply: false } })
    await s.enroll(id, [a])
    await s.settle()
    const [ma] = await messagesOf(id, a)
    await recordReply(
      t.ctx,
      (await findMessage(t.ctx, ma!.id))!,
      { from: 'a@example.com', subject: null, snippet: 'ok', text: 'ok' },
      clock.t,
    )
    await later(2 * DAY)
    expect(await messagesOf(id, a)).toHaveLength(2)
    expect((await s.runOf(id, a)).status).toBe('active')
  })

  test('a bounce and an unsubscribe stop the run, in every sequence the contact is in', async () => {
    const a = await person()
    const b = await person()
    const id = await s.sequence(three)
    const other = await s.sequence({ steps: [{ subject: 'Other', body_text: 'x', delay: 'P1D' }] })
    await s.enroll(id, [a, b])
    await s.enroll(other, [a, b])
    await s.settle()
    const [ma] = await messagesOf(id, a)
    const [mb] = await messagesOf(id, b)
    await recordBounce(
      t.ctx,
      (await findMessage(t.ctx, ma!.id))!,
      { type: 'hard', statusCode: '5.1.1', diagnostic: 'no such user' },
      clock.t,
    )
    await unsubscribeViaMessage(t.ctx, (await findMessage(t.ctx, mb!.id))!, 'link', clock.t)
    expect(await s.runOf(id, a)).toMatchObject({ status: 'stopped', stop_reason: 'bounced' })
    expect(await s.runOf(id, b)).toMatchObject({ status: 'stopped', stop_reason: 'unsubscribed' })
    expect(await s.runOf(other, a)).toMatchObject({ status: 'stopped', stop_reason: 'bounced' })
    expect(await s.runOf(other, b)).toMatchObject({ status: 'stopped', stop_reason: 'unsubscribed' })
    await later(5 * DAY)
    expect(await messagesOf(id, a)).toHaveLength(1)
    expect(await messagesOf(other, a)).toHaveLength(0)
  })

  test('a spam complaint stops the run as an unsubscribe', async () => {
    const a = await person()
    const id = await s.sequence(three)
    await s.enroll(id, [a])
    await s.settle()
    await recordComplaint(t.ctx, (await findMessage(t.ctx, (await messagesOf(id, a))[0]!.id))!, clock.t)
    expect(await s.runOf(id, a)).toMatchObject({ status: 'stopped', stop_reason: 'unsubscribed' })
    await later(2 * DAY)
    expect(await messagesOf(id, a)).toHaveLength(1)
  })

  test('a manual stop cancels the run’s queued message', async () => {
    const a = await person()
    const id = await s.sequence(three)
    await s.enroll(id, [a])
    // Stepped but not yet sent: the message is queued when the stop comes.
    await s.sequences.drain()
    expect((await messagesOf(id, a))[0]!.status).toBe('queued')
    await s.call('POST', `/api/v1/sequences/${id}/enrollments/${a}/stop`)
    await s.settle()
    expect((await messagesOf(id, a))[0]!.status).toBe('cancelled')
  })
})

describe('sending window and daily limit', () => {
  const window = { days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' }

  test("outside the window (the contact's time zone) the step waits for it to open; no zone: UTC", async () => {
    // Monday 10:00 UTC is 05:00 in New York: the window opens at 14:00 UTC. (The clock only
    // moves forward in this file: each of these tests starts on a date of its own.)
    clock.t = Date.parse('2027-01-04T10:00:00.000Z')
    const ny = await person({ timezone: 'America/New_York' })
    const utc = await person()
    const id = await s.sequence({ ...three, settings: { sending_window: window } })
    await s.enroll(id, [ny, utc])
    await s.settle()
    expect(await messagesOf(id, utc)).toHaveLength(1)
    expect(await messagesOf(id, ny)).toHaveLength(0)
    const start = clock.t
    expect((await s.runOf(id, ny)).next_run_at).toBe(new Date(start + 4 * HOUR).toISOString())
    await later(4 * HOUR - MINUTE)
    expect(await messagesOf(id, ny)).toHaveLength(0)
    await later(MINUTE)
    expect(await messagesOf(id, ny)).toHaveLength(1)
    expect((await messagesOf(id, ny))[0]!.status).toBe('delivered')
  })

  test('a Friday-evening step waits for Monday', async () => {
    clock.t = Date.parse('2027-01-08T18:00:00.000Z')
    const c = await person()
    const id = await s.sequence({ ...three, settings: { sending_window: window } })
    await s.enroll(id, [c])
    await s.settle()
    expect(await messagesOf(id, c)).toHaveLength(0)
    expect((await s.runOf(id, c)).next_run_at).toBe('2027-01-11T09:00:00.000Z')
    clock.t = Date.parse('2027-01-11T08:59:00.000Z')
    await s.settle()
    expect(await messagesOf(id, c)).toHaveLength(0)
    clock.t = Date.parse('2027-01-11T09:00:00.000Z')
    await s.settle()
    expect(await messagesOf(id, c)).toHaveLength(1)
  })

  test('over the daily limit per sender the step waits for the next day', async () => {
    clock.t = Date.parse('2027-01-12T10:00:00.000Z')
    const people = [await person(), await person(), await person()]
    const id = await s.sequence({ ...three, settings: { daily_limit: 2 } })
    await s.enroll(id, people)
    await s.settle()
    expect(await mapInOrder(people, async (p) => (await messagesOf(id, p)).length)).toEqual([1, 1, 0])
    const midnight = Date.parse('2027-01-13T00:00:00.000Z')
    expect((await s.runOf(id, people[2]!)).next_run_at).toBe(new Date(midnight).toISOString())
    clock.t = midnight - MINUTE
    await s.settle()
    expect(await messagesOf(id, people[2]!)).toHaveLength(0)
    clock.t = midnight
    await s.settle()
    expect(await messagesOf(id, people[2]!)).toHaveLength(1)
  })
})

test('the daily limit counts every sequence of the sender', async () => {
  clock.t = Date.parse('2027-01-14T10:00:00.000Z')
  const [a, b] = [await person(), await person()]
  // A sender of their own (the default sender's count today has other sequences' steps in it).
  const sender = await s.call('POST', '/api/v1/senders', {
    from_email: 'lim@outreach.example',
    from_name: 'Lim',
  })
  const one = await s.sequence({ ...three, sender_id: sender.id, settings: { daily_limit: 1 } })
  const two = await s.sequence({ ...three, sender_id: sender.id, settings: { daily_limit: 1 } })
  await s.enroll(one, [a])
  await s.settle()
  await s.enroll(two, [b])
  await s.settle()
  expect(await messagesOf(one, a)).toHaveLength(1)
  expect(await messagesOf(two, b)).toHaveLength(0)
  expect((await s.runOf(two, b)).next_run_at).toBe('2027-01-15T00:00:00.000Z')
})

describe('pause and archive', () => {
  test('paused: due steps wait until it is activated again; archived: runs exit, queued messages cancelled', async () => {
    const a = await person()
    const id = await s.sequence(three)
    await s.enroll(id, [a])
    await s.settle()
    await s.call('POST', `/api/v1/sequences/${id}/pause`)
    await later(2 * DAY)
    expect(await messagesOf(id, a)).toHaveLength(1)
    await s.call('POST', `/api/v1/sequences/${id}/activate`)
    await s.settle()
    expect(await messagesOf(id, a)).toHaveLength(2)
    await later(3 * DAY)
    expect(await messagesOf(id, a)).toHaveLength(3)

    const b = await person()
    const id2 = await s.sequence(three)
    await s.enroll(id2, [b])
    await s.sequences.drain()
    await s.call('POST', `/api/v1/sequences/${id2}/archive`)
    await s.settle()
    expect((await messagesOf(id2, b))[0]!.status).toBe('cancelled')
    expect(await s.runOf(id2, b)).toMatchObject({ status: 'exited', next_run_at: null })
  })

  test('a contact who unsubscribed meanwhile (not through this sequence) stops at the next step', async () => {
    const a = await person()
    const id = await s.sequence(three)
    await s.enroll(id, [a])
    await s.settle()
    await runSql(t, sql`UPDATE contacts SET status = 'unsubscribed' WHERE id = ${a}`)
    await later(2 * DAY)
    expect(await s.runOf(id, a)).toMatchObject({ status: 'stopped', stop_reason: 'unsubscribed' })
    expect(await messagesOf(id, a)).toHaveLength(1)
  })
})
