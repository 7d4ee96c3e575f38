import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { createTestApp } from '../helpers/app'
import { journeyTenant } from '../helpers/journey'
import { expectNewestFirstPages, expectStatusFilter } from '../helpers/paging'
import { runSql } from '../helpers/raw-sql'
import { detailFields, scenarios } from '../helpers/scenarios'

// The journeys API: graph checks on save and activation (422 naming nodes[id].member), the
// state machine (409 with the allowed states), enrollment rules, tenancy, scopes, pagination.

const t = await createTestApp({ env: { HERALD_WEBHOOK_ALLOW_PRIVATE: '1' } })
const acme = await journeyTenant(t, 'Acme')
const globex = await journeyTenant(t, 'Globex')
const readOnly = await t.key({ scopes: ['journeys:read'], clientId: acme.clientId })
const contactsOnly = await t.key({ scopes: ['contacts:read'], clientId: acme.clientId })
const hook = await acme.call('POST', '/api/v1/webhooks', {
  url: 'http://127.0.0.1:9/hook',
  events: ['email.delivered'],
})
const segment = await acme.call('POST', '/api/v1/segments', {
  name: 'Pros',
  rule_groups: [{ match: 'all', rules: [{ field: 'custom.plan', operator: 'eq', value: 'pro' }] }],
})
const globexSegment = await globex.call('POST', '/api/v1/segments', {
  name: 'G',
  rule_groups: [{ match: 'all', rules: [{ field: 'email', operator: 'exists' }] }],
})

const trigger = { id: 't', type: 'trigger', trigger: 'manual', next: 's1' }
const send = (extra: Record<string, unknown> = {}) => ({
  id: 's1',
  type: 'send',
  template_id: acme.templates.welcome.id,
  ...extra,
})
const withNodes = (...nodes: Record<string, unknown>[]) => ({ name: 'J', nodes })

describe('graph checks on save: 422 naming the node and member', () => {
  scenarios(t, { method: 'POST', path: '/api/v1/journeys', key: () => acme.key }, [
    {
      name: 'unknown node type',
      body: withNodes({ id: 'a', type: 'teleport' }),
      status: 422,
      field: 'nodes[a].type',
    },
    { name: 'node without an id', body: withNodes({ type: 'exit' }), status: 422, field: 'nodes[0].id' },
    {
      name: 'two nodes with one id',
      body: withNodes({ id: 'a', type: 'exit' }, { id: 'a', type: 'exit' }),
      status: 422,
      field: 'nodes[a].id',
    },
    {
      name: 'unknown member of a type',
      body: withNodes({ id: 'x', type: 'exit', next: 'y' }),
      status: 422,
      field: 'nodes[x].next',
    },
    {
      name: 'send without template',
      body: withNodes({ id: 's1', type: 'send' }),
      status: 422,
      field: 'nodes[s1].template_id',
    },
    {
      name: 'send with an unknown template',
      body: withNodes(send({ template_id: '01a00000-0000-7000-8000-000000000000' })),
      status: 422,
      field: 'nodes[s1].template_id',
      message: 'no such template in this client',
    },
    {
      name: "send with another client's template",
      body: withNodes(send({ template_id: globex.templates.welcome.id })),
      status: 422,
      field: 'nodes[s1].template_id',
    },
    {
      name: 'send of sms with an email template',
      body: withNodes(send({ channel: 'sms' })),
      status: 422,
      field: 'nodes[s1].template_id',
      message: /is an email template/,
    },
    {
      name: "send with another client's sender",
      body: withNodes(send({ sender_id: '01a00000-0000-7000-8000-000000000001' })),
      status: 422,
      field: 'nodes[s1].sender_id',
    },
    {
      name: 'unknown channel',
      body: withNodes(send({ channel: 'pigeon' })),
      status: 422,
      field: 'nodes[s1].channel',
    },
    {
      name: 'wait with a bad duration',
      body: withNodes({ id: 'w', type: 'wait', duration: '2 days' }),
      status: 422,
      field: 'nodes[w].duration',
    },
    {
      name: 'wait in months',
      body: withNodes({ id: 'w', type: 'wait', duration: 'P1M' }),
      status: 422,
      field: 'nodes[w].duration',
    },
    {
      name: 'wait until a bad time',
      body: withNodes({ id: 'w', type: 'wait', until: '25:00' }),
      status: 422,
      field: 'nodes[w].until',
    },
    {
      name: 'wait with both',
      body: withNodes({ id: 'w', type: 'wait', until: '09:00', duration: 'P1D' }),
      status: 422,
      field: 'nodes[w].until',
    },
    {
      name: 'wait with neither',
      body: withNodes({ id: 'w', type: 'wait' }),
      status: 422,
      field: 'nodes[w].duration',
    },
    {
      name: 'wait_for_event of an unknown event',
      body: withNodes({ id: 'e', type: 'wait_for_event', event: 'kissed', timeout: 'P1D' }),
      status: 422,
      field: 'nodes[e].event',
    },
    {
      name: 'wait_for_event without timeout',
      body: withNodes({ id: 'e', type: 'wait_for_event', event: 'opened' }),
      status: 422,
      field: 'nodes[e].timeout',
    },
    {
      name: 'condition rule on an unknown field',
      body: withNodes({
        id: 'c',
        type: 'condition',
        rule_groups: [{ match: 'all', rules: [{ field: 'shoe_size', operator: 'eq', value: 1 }] }],
      }),
      status: 422,
      field: 'nodes[c].rule_groups[0].rules[0].field',
    },
    {
      name: 'condition rule with an unknown operator',
      body: withNodes({
        id: 'c',
        type: 'condition',
        rule_groups: [{ match: 'all', rules: [{ field: 'email', operator: 'near', value: 'x' }] }],
      }),
      status: 422,
      field: 'nodes[c].rule_groups[0].rules[0].operator',
    },
    {
      name: "condition on another client's list",
      body: withNodes({
        id: 'c',
        type: 'condition',
        rule_groups: [{ match: 'all', rules: [{ field: 'list', operator: 'in', value: [globex.list.id] }] }],
      }),
      status: 422,
      field: 'nodes[c].rule_groups[0].rules[0].value[0]',
    },
    {
      // The closed-set value check of segment rules applies to condition nodes too.
      name: 'condition on a contact status that does not exist',
      body: withNodes({
        id: 'c',
        type: 'condition',
        rule_groups: [
          {
            match: 'all',
            rules: [{ field: 'status', operator: 'in', value: ['subscribed', 'subscribbed'] }],
          },
        ],
      }),
      status: 422,
      field: 'nodes[c].rule_groups[0].rules[0].value[1]',
    },
    {
      name: 'condition without rule groups',
      body: withNodes({ id: 'c', type: 'condition' }),
      status: 422,
      field: 'nodes[c].rule_groups',
    },
    {
      name: 'goal with a bad rule',
      body: withNodes({
        id: 'g',
        type: 'goal',
        rule_groups: [{ match: 'all', rules: [{ field: 'event', event: 'kissed', operator: 'has' }] }],
      }),
      status: 422,
      field: 'nodes[g].rule_groups[0].rules[0].event',
    },
    {
      name: 'split with one branch',
      body: withNodes({ id: 'p', type: 'split', branches: [{ weight: 1, next: 'p' }] }),
      status: 422,
      field: 'nodes[p].branches',
    },
    {
      name: 'split with a zero weight',
      body: withNodes(
        {
          id: 'p',
          type: 'split',
          branches: [
            { weight: 0, next: 'x' },
            { weight: 1, next: 'x' },
          ],
        },
        { id: 'x', type: 'exit' },
      ),
      status: 422,
      field: 'nodes[p].branches[0].weight',
    },
    {
      name: 'update_contact of an unknown field',
      body: withNodes({ id: 'u', type: 'update_contact', fields: { email: 'x@y.z' } }),
      status: 422,
      field: 'nodes[u].fields.email',
    },
    {
      name: 'update_contact to status bounced',
      body: withNodes({ id: 'u', type: 'update_contact', fields: { status: 'bounced' } }),
      status: 422,
      field: 'nodes[u].fields.status',
    },
    {
      name: 'update_contact with a bad time zone',
      body: withNodes({ id: 'u', type: 'update_contact', fields: { timezone: 'Mars/Olympus' } }),
      status: 422,
      field: 'nodes[u].fields.timezone',
    },
    {
      name: "add_to_list of another client's list",
      body: withNodes({ id: 'l', type: 'add_to_list', list_id: globex.list.id }),
      status: 422,
      field: 'nodes[l].list_id',
    },
    {
      name: 'remove_from_list without list',
      body: withNodes({ id: 'l', type: 'remove_from_list' }),
      status: 422,
      field: 'nodes[l].list_id',
    },
    {
      name: 'webhook of an unknown endpoint',
      body: withNodes({ id: 'h', type: 'webhook', webhook_id: '01a00000-0000-7000-8000-000000000002' }),
      status: 422,
      field: 'nodes[h].webhook_id',
    },
    {
      name: 'segment trigger without segment',
      body: withNodes({ id: 't', type: 'trigger', trigger: 'segment_entered' }),
      status: 422,
      field: 'nodes[t].segment_id',
    },
    {
      name: "segment trigger on another client's segment",
      body: withNodes({ id: 't', type: 'trigger', trigger: 'segment_entered', segment_id: globexSegment.id }),
      status: 422,
      field: 'nodes[t].segment_id',
    },
    {
      name: 'list trigger with a segment',
      body: withNodes({
        id: 't',
        type: 'trigger',
        trigger: 'list_joined',
        list_id: acme.list.id,
        segment_id: segment.id,
      }),
      status: 422,
      field: 'nodes[t].segment_id',
    },
    {
      name: 'unknown trigger',
      body: withNodes({ id: 't', type: 'trigger', trigger: 'moon_phase' }),
      status: 422,
      field: 'nodes[t].trigger',
    },
    {
      name: 'event trigger of an unknown event',
      body: withNodes({ id: 't', type: 'trigger', trigger: 'event', event: 'kissed' }),
      status: 422,
      field: 'nodes[t].event',
    },
    {
      name: 'dangling next',
      body: withNodes({ ...trigger, next: 'nowhere' }),
      status: 422,
      field: 'nodes[t].next',
      message: 'no node has the id "nowhere"',
    },
    {
      name: 'dangling yes',
      body: withNodes({
        id: 'c',
        type: 'condition',
        rule_groups: [{ match: 'all', rules: [{ field: 'email', operator: 'exists' }] }],
        yes: 'q',
      }),
      status: 422,
      field: 'nodes[c].yes',
    },
    {
      name: 'dangling branch',
      body: withNodes(
        {
          id: 'p',
          type: 'split',
          branches: [
            { weight: 1, next: 'x' },
            { weight: 1, next: 'q' },
          ],
        },
        { id: 'x', type: 'exit' },
      ),
      status: 422,
      field: 'nodes[p].branches[1].next',
    },
    {
      name: 'a cycle without a wait',
      body: withNodes(trigger, send({ next: 'l' }), {
        id: 'l',
        type: 'add_to_list',
        list_id: acme.list.id,
        next: 's1',
      }),
      status: 422,
      field: 'nodes[l].next',
      message: /cycle with no wait/,
    },
    {
      name: 'a node that leads to itself',
      body: withNodes({ id: 'l', type: 'add_to_list', list_id: acme.list.id, next: 'l' }),
      status: 422,
      field: 'nodes[l].next',
    },
    {
      name: 'a label that is not a string',
      body: withNodes({ id: 'x', type: 'exit', label: 5 }),
      status: 422,
      field: 'nodes[x].label',
    },
    { name: 'nodes not an array', body: { name: 'J', nodes: { a: 1 } }, status: 422, field: 'nodes' },
    { name: 'unknown body member', body: { name: 'J', nodez: [] }, status: 422, field: 'nodez' },
    { name: 'no name', body: { nodes: [] }, status: 422, field: 'name' },
  ])

  test('one 422 lists every failing node', async () => {
    const r = await t.call('POST', '/api/v1/journeys', {
      key: acme.key,
      body: withNodes(
        { id: 's1', type: 'send' },
        { id: 'w', type: 'wait', duration: 'soon' },
        { id: 'x', type: 'exit', next: 'q' },
      ),
    })
    expect(r.status).toBe(422)
    expect(detailFields(r.body)).toEqual(
      expect.arrayContaining(['nodes[s1].template_id', 'nodes[w].duration', 'nodes[x].next']),
    )
  })

  test('a cycle through a wait is allowed; a draft may have no nodes, or open branches', async () => {
    const loop = await t.call('POST', '/api/v1/journeys', {
      key: acme.key,
      body: withNodes(trigger, send({ next: 'w' }), { id: 'w', type: 'wait', duration: 'P7D', next: 's1' }),
    })
    expect(loop.status).toBe(200)
    expect(
      (await t.call('POST', '/api/v1/journeys', { key: acme.key, body: { name: 'Empty' } })).body.data,
    ).toMatchObject({ status: 'draft', nodes: [] })
    const open = await t.call('POST', '/api/v1/journeys', {
      key: acme.key,
      body: withNodes(trigger, send(), {
        id: 'c',
        type: 'condition',
        rule_groups: [{ match: 'all', rules: [{ field: 'email', operator: 'exists' }] }],
      }),
    })
    expect(open.status).toBe(200)
  })

  test('references are stored as UUIDs whatever form they came in', async () => {
    const hex = acme.templates.welcome.id.replaceAll('-', '')
    const r = await acme.call(
      'POST',
      '/api/v1/journeys',
      withNodes(trigger, send({ template_id: `tpl_${hex}` })),
    )
    expect(r.nodes[1].template_id).toBe(acme.templates.welcome.id)
  })
})

describe('activation checks the whole graph', () => {
  const activate = async (nodes: Record<string, unknown>[]) => {
    const j = await acme.call('POST', '/api/v1/journeys', { name: 'A', nodes })
    return t.call('POST', `/api/v1/journeys/${j.id}/activate`, { key: acme.key })
  }
  test('no trigger → 422 on nodes', async () => {
    const r = await activate([send()])
    expect(r.status).toBe(422)
    expect(detailFields(r.body)).toEqual(['nodes'])
    expect(r.body.error.details[0].message).toMatch(/exactly one trigger node; it has 0/)
  })
  test('two triggers → 422 with one entry per trigger node', async () => {
    const r = await activate([trigger, { ...trigger, id: 't2' }, send()])
    expect(r.status).toBe(422)
    expect(detailFields(r.body)).toEqual(['nodes[t]', 'nodes[t2]'])
    for (const d of r.body.error.details) expect(d.message).toMatch(/one of 2 trigger nodes/)
  })
  test('three triggers → one entry for each of them', async () => {
    const r = await activate([
      { ...trigger, next: 'x' },
      { ...trigger, id: 't2', next: 'x' },
      { ...trigger, id: 't3', next: 'x' },
      { id: 'x', type: 'exit' },
    ])
    expect(r.status).toBe(422)
    expect(detailFields(r.body)).toEqual(['nodes[t]', 'nodes[t2]', 'nodes[t3]'])
  })
  test('a condition without its no branch → 422 nodes[c].no', async () => {
    const r = await activate([
      { ...trigger, next: 'c' },
      {
        id: 'c',
        type: 'condition',
        rule_groups: [{ match: 'all', rules: [{ field: 'email', operator: 'exists' }] }],
        yes: 'x',
      },
      { id: 'x', type: 'exit' },
    ])
    expect(r.status).toBe(422)
    expect(detailFields(r.body)).toEqual(['nodes[c].no'])
  })
  test('a wait_for_event without on_timeout → 422', async () => {
    const r = await activate([
      { ...trigger, next: 'e' },
      { id: 'e', type: 'wait_for_event', event: 'opened', timeout: 'P1D', on_event: 'x' },
      { id: 'x', type: 'exit' },
    ])
    expect(detailFields(r.body)).toEqual(['nodes[e].on_timeout'])
  })
  test('a node the trigger never reaches → 422', async () => {
    const r = await activate([trigger, send(), { id: 'orphan', type: 'exit' }])
    expect(detailFields(r.body)).toEqual(['nodes[orphan]'])
  })
  test('a whole graph activates; the trigger kind is shown', async () => {
    const r = await activate([trigger, send({ next: 'x' }), { id: 'x', type: 'exit' }])
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ status: 'active', trigger: 'manual' })
    expect(r.body.data.activated_at).toBeString()
  })
})

describe('states', () => {
  const nodes = [trigger, send({ next: 'x' }), { id: 'x', type: 'exit' }]
  const post = (path: string, key = acme.key) => t.call('POST', path, { key })

  test('draft → active ⇄ paused → archived, each forbidden move a 409 naming the allowed states', async () => {
    const j = await acme.call('POST', '/api/v1/journeys', { name: 'S', nodes })
    const item = `/api/v1/journeys/${j.id}`
    let r = await post(`${item}/pause`)
    expect(r.status).toBe(409)
    expect(r.body.error).toMatchObject({
      code: 'INVALID_STATE',
      details: { status: 'draft', allowed_from: ['active'] },
    })
    expect((await post(`${item}/activate`)).body.data.status).toBe('active')
    r = await post(`${item}/activate`)
    expect(r.status).toBe(409)
    expect(r.body.error.details).toEqual({ status: 'active', allowed_from: ['draft', 'paused'] })
    // Nodes of an active journey cannot change (pause it first); its name can.
    r = await t.call('PATCH', item, { key: acme.key, body: { nodes } })
    expect(r.status).toBe(409)
    expect((await t.call('PATCH', item, { key: acme.key, body: { name: 'Renamed' } })).body.data.name).toBe(
      'Renamed',
    )
    expect((await t.call('DELETE', item, { key: acme.key })).status).toBe(409)
    expect((await post(`${item}/pause`)).body.data.status).toBe('paused')
    expect((await post(`${item}/activate`)).body.data.status).toBe('active')
    const archived = (await post(`${item}/archive`)).body.data
    expect(archived.status).toBe('archived')
    expect(archived.archived_at).toBeString()
    r = await post(`${item}/activate`)
    expect(r.body.error.details).toEqual({ status: 'archived', allowed_from: ['draft', 'paused'] })
    expect((await post(`${item}/archive`)).status).toBe(409)
    expect((await t.call('PATCH', item, { key: acme.key, body: { name: 'x' } })).status).toBe(409)
  })

  test('a draft can be deleted (then 404)', async () => {
    const j = await acme.call('POST', '/api/v1/journeys', { name: 'D' })
    expect((await t.call('DELETE', `/api/v1/journeys/${j.id}`, { key: acme.key })).body.data).toEqual({
      id: j.id,
      deleted: true,
    })
    expect((await t.call('GET', `/api/v1/journeys/${j.id}`, { key: acme.key })).status).toBe(404)
  })

  test('a paused journey keeps the nodes contacts wait at', async () => {
    const j = await acme.call('POST', '/api/v1/journeys', {
      name: 'P',
      nodes: [
        trigger,
        send({ next: 'w' }),
        { id: 'w', type: 'wait', duration: 'P1D', next: 'x' },
        { id: 'x', type: 'exit' },
      ],
    })
    await acme.call('POST', `/api/v1/journeys/${j.id}/activate`)
    const c = await acme.contact('paused-wait@example.com')
    await acme.enroll(j.id, [c])
    await acme.call('POST', `/api/v1/journeys/${j.id}/pause`)
    const r = await t.call('PATCH', `/api/v1/journeys/${j.id}`, {
      key: acme.key,
      body: {
        nodes: [
          { ...trigger, next: 'x' },
          { id: 'x', type: 'exit' },
        ],
      },
    })
    expect(r.status).toBe(422)
    expect(detailFields(r.body)).toEqual(['nodes[s1]'])
  })
})

describe('enroll', () => {
  const nodes = [
    trigger,
    send({ next: 'w' }),
    { id: 'w', type: 'wait', duration: 'P1D', next: 'x' },
    { id: 'x', type: 'exit' },
  ]
  test('only while active (409 before any reference is checked); a bad reference is 422 and nobody enters', async () => {
    const j = await acme.call('POST', '/api/v1/journeys', { name: 'E', nodes })
    const path = `/api/v1/journeys/${j.id}/enroll`
    const ann = await acme.contact('enroll-ann@example.com')
    let r = await t.call('POST', path, {
      key: acme.key,
      body: { contact_ids: ['01a00000-0000-7000-8000-000000000003'] },
    })
    expect(r.status).toBe(409)
    expect(r.body.error.details).toEqual({ status: 'draft', allowed_from: ['active'] })
    await acme.call('POST', `/api/v1/journeys/${j.id}/activate`)
    const stranger = await globex.contact('stranger@example.com')
    r = await t.call('POST', path, { key: acme.key, body: { contact_ids: [ann, stranger] } })
    expect(r.status).toBe(422)
    expect(detailFields(r.body)).toEqual(['contact_ids[1]'])
    r = await t.call('POST', path, {
      key: acme.key,
      body: { contact_ids: [ann], segment_id: globexSegment.id },
    })
    expect(r.status).toBe(422)
    expect(detailFields(r.body)).toEqual(['segment_id'])
    expect((await acme.enrollments(j.id)).length).toBe(0)
    for (const body of [{}, { contact_ids: [] }]) {
      r = await t.call('POST', path, { key: acme.key, body })
      expect(r.status).toBe(422)
      expect(detailFields(r.body)).toEqual(['contact_ids'])
    }
    r = await t.call('POST', path, { key: acme.key, body: { contact_ids: ['not-an-id'] } })
    expect(r.status).toBe(422)
  })

  test('contact_ids and segment_id together: the union, de-duplicated; a second enroll skips who was in', async () => {
    const j = await acme.call('POST', '/api/v1/journeys', { name: 'U', nodes })
    await acme.call('POST', `/api/v1/journeys/${j.id}/activate`)
    const pro1 = await acme.contact('pro1@example.com', { custom_fields: { plan: 'pro' } })
    const pro2 = await acme.contact('pro2@example.com', { custom_fields: { plan: 'pro' } })
    const free = await acme.contact('free@example.com', { custom_fields: { plan: 'free' } })
    const first = await acme.call('POST', `/api/v1/journeys/${j.id}/enroll`, {
      contact_ids: [pro1, free, free],
      segment_id: segment.id,
    })
    const pros = (await acme.call('GET', `/api/v1/segments/${segment.id}/contacts?limit=200`)).length
    expect(first).toEqual({ journey_id: j.id, enrolled: pros + 1, skipped: 0 })
    expect(pros).toBeGreaterThanOrEqual(2)
    const again = await acme.call('POST', `/api/v1/journeys/${j.id}/enroll`, { contact_ids: [pro2, free] })
    expect(again).toEqual({ journey_id: j.id, enrolled: 0, skipped: 2 })
  })

  test('allow_reentry: a contact who left may enter again, one who is in may not', async () => {
    const j = await acme.call('POST', '/api/v1/journeys', {
      name: 'R',
      nodes: [
        { ...trigger, next: 'x' },
        { id: 'x', type: 'exit' },
      ],
      allow_reentry: true,
    })
    expect(j.allow_reentry).toBe(true)
    await acme.call('POST', `/api/v1/journeys/${j.id}/activate`)
    const c = await acme.contact('reentry@example.com')
    expect((await acme.enroll(j.id, [c])).enrolled).toBe(1)
    // Still in (its first step has not run): skipped.
    expect((await acme.enroll(j.id, [c])).enrolled).toBe(0)
    await runSql(t, sql`UPDATE flow_enrollments SET status = 'completed' WHERE contact_id = ${c}`)
    expect((await acme.enroll(j.id, [c])).enrolled).toBe(1)
    expect((await acme.enrollments(j.id)).length).toBe(2)
  })
})

describe('tenancy, scopes, pagination', () => {
  let acmeJourney: string
  test("another client's journey, enrollments and stats are 404; its contacts 422", async () => {
    const j = await acme.call('POST', '/api/v1/journeys', { name: 'Mine', nodes: [trigger, send()] })
    acmeJourney = j.id
    for (const path of [
      `/api/v1/journeys/${j.id}`,
      `/api/v1/journeys/${j.id}/enrollments`,
      `/api/v1/journeys/${j.id}/stats`,
    ])
      expect((await t.call('GET', path, { key: globex.key })).status).toBe(404)
    for (const op of ['activate', 'pause', 'archive', 'enroll'])
      expect(
        (
          await t.call('POST', `/api/v1/journeys/${j.id}/${op}`, {
            key: globex.key,
            body: op === 'enroll' ? { contact_ids: [] } : undefined,
          })
        ).status,
      ).toBe(404)
    expect(
      (await t.call('PATCH', `/api/v1/journeys/${j.id}`, { key: globex.key, body: { name: 'x' } })).status,
    ).toBe(404)
    expect((await t.call('DELETE', `/api/v1/journeys/${j.id}`, { key: globex.key })).status).toBe(404)
    expect((await t.call('GET', '/api/v1/journeys/not-a-uuid', { key: acme.key })).status).toBe(404)
    const globexList = (await t.call('GET', '/api/v1/journeys?limit=200', { key: globex.key })).body.data
    expect(globexList.map((x: { id: string }) => x.id)).not.toContain(j.id)
    // A platform-wide key sees it, with its client_id, and must name the client on create.
    const got = (await t.call('GET', `/api/v1/journeys/${j.id}`)).body.data
    expect(got.client_id).toBe(acme.clientId)
    const noClient = await t.call('POST', '/api/v1/journeys', { body: { name: 'x' } })
    expect(noClient.status).toBe(422)
    expect(detailFields(noClient.body)).toEqual(['client_id'])
    expect(
      (await t.call('POST', `/api/v1/journeys?client_id=${acme.clientId}`, { body: { name: 'x' } })).body.data
        .client_id,
    ).toBe(acme.clientId)
  })

  test('scopes: reads take any key (DESIGN §5), writes need journeys:write (403 naming it)', async () => {
    expect((await t.call('GET', `/api/v1/journeys/${acmeJourney}`, { key: readOnly })).status).toBe(200)
    const denied = await t.call('POST', '/api/v1/journeys', { key: readOnly, body: { name: 'x' } })
    expect(denied.status).toBe(403)
    expect(denied.body.error.details.required_scope).toBe('journeys:write')
    for (const path of ['', '/enrollments', '/stats'])
      expect(
        (await t.call('GET', `/api/v1/journeys/${acmeJourney}${path}`, { key: contactsOnly })).status,
      ).toBe(200)
    expect((await t.call('GET', '/api/v1/journeys', { key: contactsOnly })).status).toBe(200)
  })

  test('lists paginate newest first with a signed cursor; status filter', async () => {
    await expectNewestFirstPages(t, '/api/v1/journeys', acme.key)
    await expectStatusFilter(t, '/api/v1/journeys', acme.key, 'active')
  })

  test('enrollments paginate with a cursor and filter by status and contact', async () => {
    const j = await acme.call('POST', '/api/v1/journeys', {
      name: 'Pg',
      nodes: [trigger, send({ next: 'w' }), { id: 'w', type: 'wait', duration: 'P1D' }],
    })
    await acme.call('POST', `/api/v1/journeys/${j.id}/activate`)
    const ids = [] as string[]
    for (let i = 0; i < 5; i++) ids.push(await acme.contact(`pg${i}@example.com`))
    await acme.enroll(j.id, ids)
    const p1 = (await t.call('GET', `/api/v1/journeys/${j.id}/enrollments?limit=3`, { key: acme.key })).body
    expect(p1.pagination).toMatchObject({ total: 5, limit: 3, has_more: true })
    expect(p1.data[0]).toMatchObject({
      client_id: acme.clientId,
      journey_id: j.id,
      status: 'active',
      current_node: 't',
    })
    expect(p1.data[0].next_run_at).toBeString()
    const p2 = (
      await t.call(
        'GET',
        `/api/v1/journeys/${j.id}/enrollments?limit=3&cursor=${p1.pagination.next_cursor}`,
        { key: acme.key },
      )
    ).body
    expect(p2.data).toHaveLength(2)
    expect(p2.pagination.has_more).toBe(false)
    const one = (
      await t.call('GET', `/api/v1/journeys/${j.id}/enrollments?contact_id=${ids[2]}`, { key: acme.key })
    ).body
    expect(one.data.map((e: { contact_id: string }) => e.contact_id)).toEqual([ids[2]])
    expect(
      (await t.call('GET', `/api/v1/journeys/${j.id}/enrollments?status=exited`, { key: acme.key })).body
        .pagination.total,
    ).toBe(0)
    expect(
      (await t.call('GET', `/api/v1/journeys/${j.id}/enrollments?cursor=abc`, { key: acme.key })).status,
    ).toBe(422)
  })

  test('create is idempotent with an Idempotency-Key', async () => {
    const headers = { 'idempotency-key': 'journey-create-1' }
    const a = await t.call('POST', '/api/v1/journeys', { key: acme.key, headers, body: { name: 'Once' } })
    const b = await t.call('POST', '/api/v1/journeys', { key: acme.key, headers, body: { name: 'Once' } })
    expect(b.body.data.id).toBe(a.body.data.id)
    expect(b.headers.get('idempotent-replayed')).toBe('true')
  })

  test('a webhook node may name this client’s endpoint', async () => {
    const r = await t.call('POST', '/api/v1/journeys', {
      key: acme.key,
      body: withNodes({ ...trigger, next: 'h' }, { id: 'h', type: 'webhook', webhook_id: hook.id }),
    })
    expect(r.status).toBe(200)
    const other = await t.call('POST', '/api/v1/journeys', {
      key: globex.key,
      body: withNodes({ id: 'h', type: 'webhook', webhook_id: hook.id }),
    })
    expect(detailFields(other.body)).toEqual(['nodes[h].webhook_id'])
  })
})
