import { describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { Webhook } from 'standardwebhooks'
import { type MessageRow, messages } from '../../../src/db/schema'
import { filterInOrder } from '../../../src/lib/in-order'
import { pickByWeight, unitOf } from '../../../src/lib/seeded'
import {
  findMessage,
  recordBounce,
  recordComplaint,
  recordOpen,
} from '../../../src/services/messages/activity'
import { createWebhookWorker } from '../../../src/webhooks/worker'
import { journeyApp } from '../../helpers/journey'
import { rowOf } from '../../helpers/raw-sql'
import { startReceiver } from '../../helpers/receiver'

// Every node type on the test clock: journeys of days run in milliseconds, each step driven by
// the workers pass by pass (no loop, no sleeping). Each scenario names the path it must take.

const j = await journeyApp()
const { t, clock } = j
const HOUR = 3_600_000
const DAY = 24 * HOUR
const trigger = (next: string) => ({ id: 't', type: 'trigger', trigger: 'manual', next })
const exit = { id: 'x', type: 'exit' }
const sendNode = (id: string, next?: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'send',
  template_id: j.templates.welcome.id,
  ...(next ? { next } : {}),
  ...extra,
})
const rules = (field: string, operator: string, value?: unknown) => [
  { match: 'all', rules: [{ field, operator, ...(value === undefined ? {} : { value }) }] },
]
let n = 0
const person = (extra: Record<string, unknown> = {}) => j.contact(`p${n++}@example.com`, extra)
const path = (e: { history: { node: string }[] }) => e.history.map((h) => h.node)
const messagesOf = async (journeyId: string): Promise<MessageRow[]> =>
  await t.ctx.db.select().from(messages).where(eq(messages.sourceId, journeyId)).orderBy(messages.seq)
/** Runs a journey for these contacts: enroll, then every step due now. */
async function run(
  nodes: Record<string, unknown>[],
  contacts: string[],
  extra: Record<string, unknown> = {},
) {
  const id = await j.journey(nodes, extra)
  await j.enroll(id, contacts)
  await j.settle()
  return id
}
const later = async (ms: number) => {
  clock.t += ms
  await j.settle()
}

describe('send', () => {
  test('a message in the one outbox with journey_id (campaign_id null), sent once; its events carry journey_id', async () => {
    const c = await person()
    const id = await run([trigger('s1'), sendNode('s1', 'x'), exit], [c])
    const e = await j.enrollmentOf(id, c)
    expect(e).toMatchObject({ status: 'completed', exit_reason: null, current_node: 'x', next_run_at: null })
    expect(path(e)).toEqual(['t', 's1', 'x'])
    const [m] = await messagesOf(id)
    expect(m).toMatchObject({
      sourceKind: 'journey',
      sourceId: id,
      sourceStep: 's1',
      campaignId: null,
      status: 'delivered',
      contactId: c,
    })
    expect(e.history[1]!.message_id).toBe(m!.id)
    const sent = j.provider.sent.filter((s) => s.id === m!.id)
    expect(sent).toHaveLength(1)
    if (sent[0]!.channel !== 'email') throw new Error('email expected')
    expect(sent[0]!.subject).toBe(`Welcome p${n - 1}`)
    expect(sent[0]!.html).toContain('from J')
    expect(sent[0]!.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click')
    const api = (await j.call('GET', `/api/v1/messages?journey_id=${id}`)) as Record<string, unknown>[]
    expect(api.map((x) => x.id)).toEqual([m!.id])
    expect(api[0]).toMatchObject({ journey_id: id, campaign_id: null })
    const delivered = (await rowOf<{ data: string; journey_id: string }>(
      t,
      sql`SELECT CAST(data AS TEXT) AS data, journey_id FROM events WHERE message_id = ${m!.id} AND type = 'email.delivered'`,
    ))!
    expect(delivered.journey_id).toBe(id)
    expect(JSON.parse(delivered.data)).toMatchObject({
      campaign_id: null,
      journey_id: `jrn_${id.replaceAll('-', '')}`,
    })
  })

  const skipped: [string, Record<string, unknown>, () => Promise<void> | void, string][] = [
    ['unsubscribed', { status: 'unsubscribed' }, () => {}, 'contact_unsubscribed'],
    ['blocked', { status: 'blocked' }, () => {}, 'contact_blocked'],
    [
      'suppressed',
      {},
      async () => void (await j.call('POST', '/api/v1/suppressions', { email: `p${n - 1}@example.com` })),
      'suppressed',
    ],
  ]
  for (const [name, extra, before, reason] of skipped)
    test(`a ${name} contact's send is skipped and recorded; the journey goes on`, async () => {
      const c = await person(extra)
      await before()
      const id = await run([trigger('s1'), sendNode('s1', 'x'), exit], [c])
      const e = await j.enrollmentOf(id, c)
      expect(e.history[1]).toMatchObject({ node: 's1', skipped: reason })
      expect(e.status).toBe('completed')
      expect(await messagesOf(id)).toHaveLength(0)
    })

  test('sms goes to the phone; a contact without one is skipped (no_phone)', async () => {
    const withPhone = await person({ phone: '+14155550123' })
    const without = await person()
    const id = await run(
      [trigger('s1'), { id: 's1', type: 'send', channel: 'sms', template_id: j.templates.sms.id }],
      [withPhone, without],
    )
    const [m] = await messagesOf(id)
    expect(m).toMatchObject({ channel: 'sms', to: '+14155550123', status: 'delivered' })
    expect((await j.enrollmentOf(id, without)).history[1]).toMatchObject({ skipped: 'no_phone' })
  })
})

describe('wait', () => {
  test('a duration waits exactly that long on the clock', async () => {
    const c = await person()
    const id = await run(
      [trigger('w'), { id: 'w', type: 'wait', duration: 'P2D', next: 's1' }, sendNode('s1')],
      [c],
    )
    let e = await j.enrollmentOf(id, c)
    expect(e).toMatchObject({
      status: 'active',
      current_node: 'w',
      next_run_at: new Date(clock.t + 2 * DAY).toISOString(),
    })
    await later(2 * DAY - 1)
    expect(await messagesOf(id)).toHaveLength(0)
    await later(1)
    e = await j.enrollmentOf(id, c)
    expect(path(e)).toEqual(['t', 'w', 's1'])
    expect(e.status).toBe('completed')
    expect(await messagesOf(id)).toHaveLength(1)
  })

  test("until HH:MM waits for that time in the contact's time zone, else UTC", async () => {
    clock.t = Date.parse('2026-11-24T10:00:00.000Z') // 05:00 in New York
    const ny = await person({ timezone: 'America/New_York' })
    const utc = await person()
    const id = await run(
      [trigger('w'), { id: 'w', type: 'wait', until: '09:00', next: 'x' }, exit],
      [ny, utc],
    )
    expect((await j.enrollmentOf(id, ny)).next_run_at).toBe('2026-11-24T14:00:00.000Z')
    expect((await j.enrollmentOf(id, utc)).next_run_at).toBe('2026-11-25T09:00:00.000Z')
    await later(4 * HOUR)
    expect((await j.enrollmentOf(id, ny)).status).toBe('completed')
    expect((await j.enrollmentOf(id, utc)).status).toBe('active')
  })
})

describe('wait_for_event', () => {
  test('the event takes on_event at once; no event takes on_timeout when the time is up', async () => {
    const opener = await person()
    const idle = await person()
    const id = await run(
      [
        trigger('s1'),
        sendNode('s1', 'e'),
        {
          id: 'e',
          type: 'wait_for_event',
          event: 'opened',
          timeout: 'P3D',
          on_event: 'yes',
          on_timeout: 'no',
        },
        { id: 'yes', type: 'add_to_list', list_id: j.list.id },
        { id: 'no', type: 'exit' },
      ],
      [opener, idle],
    )
    expect((await j.enrollmentOf(id, opener)).current_node).toBe('e')
    const m = (await messagesOf(id)).find((x) => x.contactId === opener)!
    clock.t += HOUR
    await recordOpen(t.ctx, (await findMessage(t.ctx, m.id))!, 'Mozilla/5.0 (Macintosh) real reader', clock.t)
    await j.settle()
    const o = await j.enrollmentOf(id, opener)
    expect(path(o)).toEqual(['t', 's1', 'e', 'e', 'yes'])
    expect(o.history[3]).toMatchObject({ result: 'event' })
    expect((await j.enrollmentOf(id, idle)).status).toBe('active')
    await later(3 * DAY)
    const i = await j.enrollmentOf(id, idle)
    expect(path(i)).toEqual(['t', 's1', 'e', 'e', 'no'])
    expect(i.history[3]).toMatchObject({ result: 'timeout' })
  })
})

describe('condition and split', () => {
  test('a condition evaluates the rule groups for the one contact: yes and no', async () => {
    const pro = await person({ custom_fields: { plan: 'pro' } })
    const free = await person({ custom_fields: { plan: 'free' } })
    const id = await run(
      [
        trigger('c'),
        { id: 'c', type: 'condition', rule_groups: rules('custom.plan', 'eq', 'pro'), yes: 's1', no: 'x' },
        sendNode('s1'),
        exit,
      ],
      [pro, free],
    )
    expect(path(await j.enrollmentOf(id, pro))).toEqual(['t', 'c', 's1'])
    expect((await j.enrollmentOf(id, pro)).history[1]).toMatchObject({ result: 'yes' })
    expect(path(await j.enrollmentOf(id, free))).toEqual(['t', 'c', 'x'])
    expect((await messagesOf(id)).map((m) => m.contactId)).toEqual([pro])
  })

  test('an activity rule reads the events (clicked has_not)', async () => {
    const c = await person()
    const id = await run(
      [
        trigger('c'),
        {
          id: 'c',
          type: 'condition',
          rule_groups: [{ match: 'all', rules: [{ field: 'event', event: 'clicked', operator: 'has_not' }] }],
          yes: 'x',
          no: 's1',
        },
        sendNode('s1'),
        exit,
      ],
      [c],
    )
    expect(path(await j.enrollmentOf(id, c))).toEqual(['t', 'c', 'x'])
  })

  test('a split sends each contact down one weighted branch and records which', async () => {
    const people = await Promise.all(Array.from({ length: 60 }, () => person()))
    const id = await run(
      [
        trigger('p'),
        {
          id: 'p',
          type: 'split',
          branches: [
            { weight: 1, next: 'a', name: 'A' },
            { weight: 1, next: 'b', name: 'B' },
          ],
        },
        { id: 'a', type: 'exit' },
        { id: 'b', type: 'exit' },
      ],
      people,
    )
    const all = await j.enrollments(id)
    for (const e of all) {
      const split = e.history[1]!
      expect(split.node).toBe('p')
      expect(path(e)[2]).toBe(split.branch === 0 ? 'a' : 'b')
      expect(split.branch_name).toBe(split.branch === 0 ? 'A' : 'B')
    }
    // The draw is the flow's, the node's and the contact's: computed again, it is the same.
    for (const e of all)
      expect(e.history[1]!.branch).toBe(pickByWeight([1, 1], unitOf(`${id}:p:${e.contact_id}`)))
    // 60 fair coin flips all alike: 2 in 10^18.
    const a = all.filter((e) => e.history[1]!.branch === 0).length
    expect(a).toBeGreaterThan(0)
    expect(a).toBeLessThan(60)
  })
})

describe('contact and list actions, webhook', () => {
  test('update_contact sets fields, merges custom_fields, and an unsubscribe is an event', async () => {
    const c = await person({ custom_fields: { plan: 'free', seats: 2 } })
    await run(
      [
        trigger('u'),
        {
          id: 'u',
          type: 'update_contact',
          fields: { company: 'Initech', custom_fields: { plan: 'pro', seats: null }, status: 'unsubscribed' },
          next: 'x',
        },
        exit,
      ],
      [c],
    )
    const after = await j.call('GET', `/api/v1/contacts/${c}`)
    expect(after).toMatchObject({
      company: 'Initech',
      custom_fields: { plan: 'pro' },
      status: 'unsubscribed',
    })
    const ev = (await rowOf<{ data: string }>(
      t,
      sql`SELECT CAST(data AS TEXT) AS data FROM events WHERE contact_id = ${c} AND type = 'contact.unsubscribed'`,
    ))!
    expect(JSON.parse(ev.data)).toMatchObject({ source: 'journey', campaign_id: null })
  })

  test('add_to_list and remove_from_list keep member_count exact', async () => {
    const list = await j.call('POST', '/api/v1/lists', { name: 'Engaged' })
    const c = await person()
    await run(
      [
        trigger('a'),
        { id: 'a', type: 'add_to_list', list_id: list.id, next: 'w' },
        { id: 'w', type: 'wait', duration: 'PT1H', next: 'r' },
        { id: 'r', type: 'remove_from_list', list_id: list.id },
      ],
      [c],
    )
    expect((await j.call('GET', `/api/v1/lists/${list.id}`)).member_count).toBe(1)
    await later(HOUR)
    expect((await j.call('GET', `/api/v1/lists/${list.id}`)).member_count).toBe(0)
  })

  test('a webhook node posts a signed journey.webhook through the webhook worker', async () => {
    // standardwebhooks checks the signature's timestamp against the real time.
    clock.t = Date.now()
    const receiver = startReceiver()
    const hook = await j.call('POST', '/api/v1/webhooks', { url: receiver.url, events: ['email.delivered'] })
    const c = await person()
    const id = await run(
      [trigger('h'), { id: 'h', type: 'webhook', webhook_id: hook.id, next: 'x' }, exit],
      [c],
    )
    const e = await j.enrollmentOf(id, c)
    expect(e.history[1]!.delivery_id).toBeString()
    await createWebhookWorker(t.ctx).drain()
    const r = receiver.received.find((x) => x.body.includes('journey.webhook'))!
    const payload = new Webhook(hook.secret).verify(r.body, {
      'webhook-id': r.headers['webhook-id']!,
      'webhook-timestamp': r.headers['webhook-timestamp']!,
      'webhook-signature': r.headers['webhook-signature']!,
    }) as { type: string; data: Record<string, unknown> }
    expect(payload.type).toBe('journey.webhook')
    expect(payload.data).toMatchObject({
      node_id: 'h',
      email: `p${n - 1}@example.com`,
      journey_id: `jrn_${id.replaceAll('-', '')}`,
    })
    const deliveries = await j.call('GET', `/api/v1/webhooks/${hook.id}/deliveries`)
    expect(deliveries[0]).toMatchObject({ id: e.history[1]!.delivery_id, status: 'succeeded' })
    await receiver.close()
  })
})

describe('goal, exit and leaving', () => {
  test('a goal met at any point ends the journey as a conversion; the rest of the path is not run', async () => {
    const c = await person({ custom_fields: { plan: 'free' } })
    const id = await run(
      [
        trigger('s1'),
        sendNode('s1', 'w'),
        { id: 'w', type: 'wait', duration: 'P1D', next: 's2' },
        sendNode('s2', 'g'),
        { id: 'g', type: 'goal', rule_groups: rules('custom.plan', 'eq', 'paid'), next: 'x' },
        exit,
      ],
      [c],
    )
    await j.call('PATCH', `/api/v1/contacts/${c}`, { custom_fields: { plan: 'paid' } })
    await later(DAY)
    const e = await j.enrollmentOf(id, c)
    expect(e).toMatchObject({ status: 'completed', exit_reason: 'goal' })
    expect(path(e)).toEqual(['t', 's1', 'w', 'g'])
    expect(e.history[3]).toMatchObject({ goal: true })
    expect(await messagesOf(id)).toHaveLength(1)
    const stats = await j.call('GET', `/api/v1/journeys/${id}/stats`)
    expect(stats).toMatchObject({ entered: 1, completed: 1, goal_conversions: 1, active: 0 })
    expect(stats.nodes.find((x: { id: string }) => x.id === 'g').passed).toBe(1)
    expect(stats.nodes.find((x: { id: string }) => x.id === 's2').passed).toBe(0)
  })

  test('a goal on the path that is not met is passed through', async () => {
    const c = await person()
    const id = await run(
      [trigger('g'), { id: 'g', type: 'goal', rule_groups: rules('company', 'eq', 'Nope'), next: 'x' }, exit],
      [c],
    )
    const e = await j.enrollmentOf(id, c)
    expect(path(e)).toEqual(['t', 'g', 'x'])
    expect(e).toMatchObject({ status: 'completed', exit_reason: null })
  })

  test('a hard bounce takes the contact out at once (exit_reason bounced); a soft one does not', async () => {
    const hard = await person()
    const soft = await person()
    const nodes = [
      trigger('s1'),
      sendNode('s1', 'w'),
      { id: 'w', type: 'wait', duration: 'P7D', next: 's2' },
      sendNode('s2'),
    ]
    const id = await run(nodes, [hard, soft])
    const byContact = new Map((await messagesOf(id)).map((m) => [m.contactId, m]))
    await recordBounce(
      t.ctx,
      byContact.get(hard)!,
      { type: 'hard', statusCode: '5.1.1', diagnostic: 'no such user' },
      clock.t,
    )
    await recordBounce(
      t.ctx,
      byContact.get(soft)!,
      { type: 'soft', statusCode: '4.2.2', diagnostic: 'mailbox full' },
      clock.t,
    )
    expect(await j.enrollmentOf(id, hard)).toMatchObject({
      status: 'exited',
      exit_reason: 'bounced',
      next_run_at: null,
    })
    await later(7 * DAY)
    expect(await j.enrollmentOf(id, soft)).toMatchObject({ status: 'completed' })
    expect((await messagesOf(id)).filter((m) => m.contactId === hard)).toHaveLength(1)
  })

  test('a complaint takes the contact out (exit_reason complained)', async () => {
    const c = await person()
    const id = await run(
      [
        trigger('s1'),
        sendNode('s1', 'w'),
        { id: 'w', type: 'wait', duration: 'P1D', next: 's2' },
        sendNode('s2'),
      ],
      [c],
    )
    await recordComplaint(t.ctx, (await messagesOf(id))[0]!, clock.t)
    expect(await j.enrollmentOf(id, c)).toMatchObject({ status: 'exited', exit_reason: 'complained' })
  })

  test('an erased contact leaves at its next step (exit_reason erased)', async () => {
    const c = await person()
    const id = await run(
      [trigger('w'), { id: 'w', type: 'wait', duration: 'PT1H', next: 's1' }, sendNode('s1')],
      [c],
    )
    await j.call('DELETE', `/api/v1/contacts/${c}`)
    await later(HOUR)
    expect(await j.enrollmentOf(id, c)).toMatchObject({ status: 'exited', exit_reason: 'erased' })
    expect(await messagesOf(id)).toHaveLength(0)
  })
})

describe('pause, activate, archive', () => {
  const nodes = [
    trigger('w'),
    { id: 'w', type: 'wait', duration: 'PT1H', next: 's1' },
    sendNode('s1', 'x'),
    exit,
  ]

  test('pause stops steps (due ones wait, however long); activate continues where they were', async () => {
    const c = await person()
    const id = await run(nodes, [c])
    await j.call('POST', `/api/v1/journeys/${id}/pause`)
    await later(10 * HOUR)
    expect(await j.enrollmentOf(id, c)).toMatchObject({ status: 'active', current_node: 'w' })
    expect(await messagesOf(id)).toHaveLength(0)
    await j.call('POST', `/api/v1/journeys/${id}/activate`)
    await j.settle()
    expect(path(await j.enrollmentOf(id, c))).toEqual(['t', 'w', 's1', 'x'])
    expect(await messagesOf(id)).toHaveLength(1)
  })

  test("a paused journey's queued messages wait too, and go when it is active again", async () => {
    const c = await person()
    const id = await j.journey([trigger('s1'), sendNode('s1', 'x'), exit])
    await j.enroll(id, [c])
    await j.journeys.drain()
    await j.call('POST', `/api/v1/journeys/${id}/pause`)
    await j.sender.drain()
    expect((await messagesOf(id))[0]!.status).toBe('queued')
    await j.call('POST', `/api/v1/journeys/${id}/activate`)
    await j.settle()
    expect((await messagesOf(id))[0]!.status).toBe('delivered')
  })

  test('archive exits everyone (exit_reason archived) and cancels what was not sent', async () => {
    const a = await person()
    const b = await person()
    const id = await j.journey([
      trigger('s1'),
      sendNode('s1', 'w'),
      { id: 'w', type: 'wait', duration: 'P1D', next: 'x' },
      exit,
    ])
    await j.enroll(id, [a, b])
    await j.journeys.drain()
    await j.call('POST', `/api/v1/journeys/${id}/archive`)
    for (const c of [a, b])
      expect(await j.enrollmentOf(id, c)).toMatchObject({ status: 'exited', exit_reason: 'archived' })
    expect((await messagesOf(id)).map((m) => m.status)).toEqual(['cancelled', 'cancelled'])
    await later(2 * DAY)
    expect(
      await filterInOrder(j.provider.sent, async (s) => (await messagesOf(id)).some((m) => m.id === s.id)),
    ).toHaveLength(0)
    const stats = await j.call('GET', `/api/v1/journeys/${id}/stats`)
    expect(stats).toMatchObject({ entered: 2, exited: 2, exit_reasons: { archived: 2 } })
  })
})
