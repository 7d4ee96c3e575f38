import { afterAll, describe, expect, test } from 'bun:test'
import { and, eq } from 'drizzle-orm'
import { contacts, events, type MessageRow, messages, replies, suppressions } from '../../src/db/schema'
import type { Hook } from '../../src/lib/hook'
import { recordEvent } from '../../src/services/events/record'
import { findMessage, recordClick, recordComplaint, recordReply } from '../../src/services/messages/activity'
import { sequenceApp } from '../helpers/sequence'

// Core fires a hook inside the transaction of its change and journeys and sequences react in
// it. For each hook: the subscriber's effect happens, and a handler bound after it that throws
// undoes the core write and the subscriber's write together.

const s = await sequenceApp()
const { t, clock } = s
afterAll(() => s.close())
let n = 0
const person = (extra: Record<string, unknown> = {}) => s.contact(`h${n++}@example.com`, extra)
// biome-ignore lint/suspicious/noExplicitAny: any payload will do for a handler that only throws
const failing = (hook: Hook<any, any>) =>
  hook.bind(() => {
    throw new Error('subscriber failed')
  })
const waiting = [
  { id: 't', type: 'trigger', trigger: 'manual', next: 'w' },
  { id: 'w', type: 'wait', duration: 'P1D', next: 'x' },
  { id: 'x', type: 'exit' },
]
const journeyOf = (trigger: Record<string, unknown>) =>
  s.journey([
    { id: 't', type: 'trigger', ...trigger, next: 'x' },
    { id: 'x', type: 'exit' },
  ])
const enrolled = async (journeyId: string) => (await s.enrollments(journeyId)).map((e) => e.contact_id)
/** A contact with the first step of a two-step sequence sent: the message, and the sequence. */
async function inSequence(c: string): Promise<{ m: MessageRow; sequenceId: string }> {
  const sequenceId = await s.sequence({
    steps: [
      { subject: 'Hi', body_text: 'Hi', delay: 'PT0S' },
      { body_text: 'Again', delay: 'P2D' },
    ],
  })
  await s.enroll(sequenceId, [c])
  await s.settle()
  const m = (await t.ctx.db.select().from(messages).where(eq(messages.sourceId, sequenceId)).limit(1))[0]!
  return { m, sequenceId }
}

describe('list.joined', () => {
  test('a list_joined journey enrolls in addMembers’ transaction; a throwing subscriber undoes both', async () => {
    const list = await s.call('POST', '/api/v1/lists', { name: 'Joiners' })
    const journey = await journeyOf({ trigger: 'list_joined', list_id: list.id })
    const c = await person()
    const add = () =>
      t.call('POST', `/api/v1/lists/${list.id}/contacts`, { key: s.key, body: { contact_ids: [c] } })
    const id = failing(t.ctx.hooks.listJoined)
    expect((await add()).status).toBe(500)
    t.ctx.hooks.listJoined.unbind(id)
    expect((await s.call('GET', `/api/v1/lists/${list.id}`)).member_count).toBe(0)
    expect(await enrolled(journey)).toEqual([])
    expect((await add()).body.data.added).toBe(1)
    expect(await enrolled(journey)).toEqual([c])
  })
})

describe('contact.created', () => {
  test('a contact_created journey enrolls in the create’s transaction; a throwing subscriber undoes both', async () => {
    const journey = await journeyOf({ trigger: 'contact_created' })
    const email = `h${n++}@example.com`
    const create = () => t.call('POST', '/api/v1/contacts', { key: s.key, body: { email } })
    const id = failing(t.ctx.hooks.contactCreated)
    expect((await create()).status).toBe(500)
    t.ctx.hooks.contactCreated.unbind(id)
    expect(await t.ctx.db.select().from(contacts).where(eq(contacts.email, email))).toEqual([])
    expect(await enrolled(journey)).toEqual([])
    const c = (await create()).body.data.id
    expect(await enrolled(journey)).toEqual([c])
    await s.call('POST', `/api/v1/journeys/${journey}/archive`)
  })
})

describe('event.recorded', () => {
  test('an event journey enrolls in the event’s transaction; a throwing subscriber undoes both', async () => {
    const c = await person()
    const { m } = await inSequence(c)
    const journey = await journeyOf({ trigger: 'event', event: 'clicked' })
    const click = async () =>
      await recordClick(t.ctx, m, 'https://example.com/x', 'Mozilla/5.0 reader', clock.t)
    const clicks = async () =>
      await t.ctx.db
        .select()
        .from(events)
        .where(and(eq(events.messageId, m.id), eq(events.type, 'email.clicked')))
    const id = failing(t.ctx.hooks.eventRecorded)
    expect(click).toThrow('subscriber failed')
    t.ctx.hooks.eventRecorded.unbind(id)
    expect(await clicks()).toEqual([])
    expect((await findMessage(t.ctx, m.id))!.clickedAt).toBeNull()
    expect(await enrolled(journey)).toEqual([])
    await click()
    expect(await clicks()).toHaveLength(1)
    expect(await enrolled(journey)).toEqual([c])
    await s.call('POST', `/api/v1/journeys/${journey}/archive`)
  })
})

describe('complaint', () => {
  test('journeys and sequences let the contact go in the complaint’s transaction; a throwing subscriber undoes it all', async () => {
    const c = await person()
    const { m, sequenceId } = await inSequence(c)
    const journey = await s.journey(waiting)
    await s.call('POST', `/api/v1/journeys/${journey}/enroll`, { contact_ids: [c] })
    const complain = async () => await recordComplaint(t.ctx, m, clock.t)
    const id = failing(t.ctx.hooks.complaint)
    expect(complain).toThrow('subscriber failed')
    t.ctx.hooks.complaint.unbind(id)
    const contact = async () =>
      (await t.ctx.db.select().from(contacts).where(eq(contacts.id, c)).limit(1))[0]!
    expect((await contact()).status).toBe('subscribed')
    expect(await t.ctx.db.select().from(suppressions).where(eq(suppressions.reason, 'complaint'))).toEqual([])
    expect((await s.runOf(sequenceId, c)).status).toBe('active')
    expect((await s.enrollmentOf(journey, c)).status).toBe('active')
    await complain()
    expect((await contact()).status).toBe('complained')
    expect(await s.runOf(sequenceId, c)).toMatchObject({ status: 'stopped', stop_reason: 'unsubscribed' })
    expect(await s.enrollmentOf(journey, c)).toMatchObject({ status: 'exited', exit_reason: 'complained' })
  })
})

describe('reply', () => {
  test('a reply stops the sequence run in the reply’s transaction; a throwing subscriber undoes both', async () => {
    const c = await person()
    const { m, sequenceId } = await inSequence(c)
    const reply = async () =>
      await recordReply(t.ctx, m, { from: m.to, subject: 'Re: Hi', snippet: 'stop', text: 'stop' }, clock.t)
    const id = failing(t.ctx.hooks.reply)
    expect(reply).toThrow('subscriber failed')
    t.ctx.hooks.reply.unbind(id)
    expect(await t.ctx.db.select().from(replies).where(eq(replies.messageId, m.id))).toEqual([])
    expect((await s.runOf(sequenceId, c)).status).toBe('active')
    await reply()
    expect(await t.ctx.db.select().from(replies).where(eq(replies.messageId, m.id))).toHaveLength(1)
    expect(await s.runOf(sequenceId, c)).toMatchObject({ status: 'stopped', stop_reason: 'replied' })
  })

  test('a reply.received event alone does not stop a run: the reply hook does', async () => {
    const c = await person()
    const { m, sequenceId } = await inSequence(c)
    await recordEvent(t.ctx, {
      clientId: m.clientId,
      type: 'reply.received',
      contactId: c,
      messageId: m.id,
      occurredAt: clock.t,
      data: {},
    })
    expect((await s.runOf(sequenceId, c)).status).toBe('active')
  })
})
