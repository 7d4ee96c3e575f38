import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { messages } from '../../../src/db/schema'
import { registerJobs } from '../../../src/jobs'
import { filterInOrder } from '../../../src/lib/in-order'
import { recordEvent } from '../../../src/services/events/record'
import { findMessage, recordClick, recordOpen } from '../../../src/services/messages/activity'
import { journeyApp } from '../../helpers/journey'

// The triggers that start journeys by themselves: list_joined and contact_created in their
// verbs' transactions, event triggers where events are written, segment_entered by the named
// job (contacts newly matching since activation, each once unless re-entry is allowed).

const j = await journeyApp()
const { t } = j
registerJobs(t.ctx)
const exit = { id: 'x', type: 'exit' }
const send = { id: 's1', type: 'send', template_id: j.templates.welcome.id, next: 'x' }
let n = 0
const email = () => `tr${n++}@example.com`
const contactsOf = async (id: string) => (await j.enrollments(id)).map((e) => e.contact_id).sort()
const runSegmentJob = () => t.ctx.jobs.runNow('journeys.segment-entered')

describe('list_joined', () => {
  test('contacts joining the list enter, whether added to the list or created with list_ids; joining again does not re-enter', async () => {
    const list = await j.call('POST', '/api/v1/lists', { name: 'Trial' })
    const before = await j.contact(email(), { list_ids: [list.id] })
    const id = await j.journey([
      { id: 't', type: 'trigger', trigger: 'list_joined', list_id: list.id, next: 's1' },
      send,
      exit,
    ])
    expect(await contactsOf(id)).toEqual([])
    const a = await j.contact(email())
    await j.call('POST', `/api/v1/lists/${list.id}/contacts`, { contact_ids: [a, before] })
    const b = await j.contact(email(), { list_ids: [list.id] })
    expect(await contactsOf(id)).toEqual([a, b].sort())
    // Already a member: not a join. Leaving and joining again: ever enrolled, so skipped.
    await j.call('POST', `/api/v1/lists/${list.id}/contacts`, { contact_ids: [a] })
    await j.call('POST', `/api/v1/lists/${list.id}/contacts/remove`, { contact_ids: [a] })
    await j.call('POST', `/api/v1/lists/${list.id}/contacts`, { contact_ids: [a] })
    expect(await contactsOf(id)).toEqual([a, b].sort())
    expect((await j.call('GET', `/api/v1/lists/${list.id}`)).member_count).toBe(3)
    await j.settle()
    expect(
      await filterInOrder(j.provider.sent, async (m) =>
        [a, b].includes(((await findMessage(t.ctx, m.id)) ?? { contactId: '' }).contactId),
      ),
    ).toHaveLength(2)
  })

  test('a paused journey does not take new joiners', async () => {
    const list = await j.call('POST', '/api/v1/lists', { name: 'Paused' })
    const id = await j.journey([
      { id: 't', type: 'trigger', trigger: 'list_joined', list_id: list.id, next: 'x' },
      exit,
    ])
    await j.call('POST', `/api/v1/journeys/${id}/pause`)
    await j.contact(email(), { list_ids: [list.id] })
    expect(await contactsOf(id)).toEqual([])
  })
})

describe('contact_created', () => {
  test("a new contact of the journey's client enters; another client's does not", async () => {
    const id = await j.journey([{ id: 't', type: 'trigger', trigger: 'contact_created', next: 'x' }, exit])
    const c = await j.contact(email())
    const other = await t.client('Other')
    const otherKey = await t.key({ scopes: ['admin:*'], clientId: other })
    await t.call('POST', '/api/v1/contacts', { key: otherKey, body: { email: email() } })
    expect(await contactsOf(id)).toEqual([c])
    await j.call('POST', `/api/v1/journeys/${id}/archive`)
  })
})

describe('event', () => {
  test('an opened of any message starts an event journey for that contact; another event type does not', async () => {
    const opener = await j.contact(email())
    const clicker = await j.contact(email())
    const source = await j.journey([{ id: 't', type: 'trigger', trigger: 'manual', next: 's1' }, send, exit])
    await j.enroll(source, [opener, clicker])
    await j.settle()
    const id = await j.journey([
      { id: 't', type: 'trigger', trigger: 'event', event: 'opened', next: 'x' },
      exit,
    ])
    const msgs = await t.ctx.db.select().from(messages).where(eq(messages.sourceId, source))
    const of = (c: string) => msgs.find((m) => m.contactId === c)!
    await recordOpen(t.ctx, of(opener), 'Mozilla/5.0 (Windows NT 10.0) reader', j.clock.now())
    await recordOpen(t.ctx, of(opener), 'Mozilla/5.0 (Windows NT 10.0) reader', j.clock.now())
    expect(await contactsOf(id)).toEqual([opener])
    await j.call('POST', `/api/v1/journeys/${id}/archive`)
  })

  test("an event trigger with campaign_id starts only on that campaign's events", async () => {
    const c = await j.contact(email())
    const d = await j.contact(email())
    const campaign = await j.call('POST', '/api/v1/campaigns', {
      name: 'C',
      list_id: j.list.id,
      subject: 's',
      body_text: 'b',
    })
    const id = await j.journey([
      { id: 't', type: 'trigger', trigger: 'event', event: 'clicked', campaign_id: campaign.id, next: 'x' },
      exit,
    ])
    const clicked = async (contactId: string, campaignId: string | null) =>
      await recordEvent(t.ctx, {
        clientId: j.clientId,
        type: 'email.clicked',
        contactId,
        campaignId,
        occurredAt: j.clock.now(),
        data: {},
      })
    await clicked(c, campaign.id)
    await clicked(d, null)
    expect(await contactsOf(id)).toEqual([c])
    await j.call('POST', `/api/v1/journeys/${id}/archive`)
  })

  test('a click recorded through tracking starts a clicked journey', async () => {
    const c = await j.contact(email())
    const source = await j.journey([{ id: 't', type: 'trigger', trigger: 'manual', next: 's1' }, send, exit])
    await j.enroll(source, [c])
    await j.settle()
    const id = await j.journey([
      { id: 't', type: 'trigger', trigger: 'event', event: 'clicked', next: 'x' },
      exit,
    ])
    const m = (await t.ctx.db.select().from(messages).where(eq(messages.sourceId, source)).limit(1))[0]!
    await recordClick(t.ctx, m, 'https://example.com/x', 'Mozilla/5.0 reader', j.clock.now())
    expect(await contactsOf(id)).toEqual([c])
    await j.call('POST', `/api/v1/journeys/${id}/archive`)
  })
})

describe('segment_entered', () => {
  test('the job enrolls contacts newly matching since activation, once; leaving and matching again re-enters only with allow_reentry', async () => {
    const segment = await j.call('POST', '/api/v1/segments', {
      name: 'VIP',
      rule_groups: [{ match: 'all', rules: [{ field: 'custom.tier', operator: 'eq', value: 'vip' }] }],
    })
    const baseline = await j.contact(email(), { custom_fields: { tier: 'vip' } })
    const nodes = [
      { id: 't', type: 'trigger', trigger: 'segment_entered', segment_id: segment.id, next: 'x' },
      exit,
    ]
    const once = await j.journey(nodes)
    const again = await j.journey(nodes, { allow_reentry: true })
    await runSegmentJob()
    expect(await contactsOf(once)).toEqual([])
    const newcomer = await j.contact(email(), { custom_fields: { tier: 'vip' } })
    const promoted = await j.contact(email(), { custom_fields: { tier: 'basic' } })
    await j.call('PATCH', `/api/v1/contacts/${promoted}`, { custom_fields: { tier: 'vip' } })
    await runSegmentJob()
    expect(await contactsOf(once)).toEqual([newcomer, promoted].sort())
    await runSegmentJob()
    expect((await j.enrollments(once)).length).toBe(2)
    await j.settle()
    // newcomer leaves the segment, then matches again.
    await j.call('PATCH', `/api/v1/contacts/${newcomer}`, { custom_fields: { tier: 'basic' } })
    await runSegmentJob()
    await j.call('PATCH', `/api/v1/contacts/${newcomer}`, { custom_fields: { tier: 'vip' } })
    await runSegmentJob()
    expect((await j.enrollments(once)).filter((e) => e.contact_id === newcomer)).toHaveLength(1)
    expect((await j.enrollments(again)).filter((e) => e.contact_id === newcomer)).toHaveLength(2)
    expect((await contactsOf(again)).includes(baseline)).toBe(false)
    const job = t.ctx.jobs.list().find((x) => x.name === 'journeys.segment-entered')!
    expect(job.schedule).toBe('* * * * *')
    expect(job.last_error).toBeNull()
  })
})
