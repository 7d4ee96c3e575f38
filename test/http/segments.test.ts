import { describe, expect, test } from 'bun:test'
import { recordEvent } from '../../src/services/events/record'
import { createTestApp } from '../helpers/app'

const DAY = 86_400_000
const t = await createTestApp()
const acme = await t.client('Acme')
const globex = await t.client('Globex')
const key = await t.key({ scopes: ['lists:write', 'contacts:write'], clientId: acme })
const globexKey = await t.key({ scopes: ['lists:write'], clientId: globex })

const contact = async (body: Record<string, unknown>) =>
  (await t.call('POST', '/api/v1/contacts', { key, body })).body.data.id as string
const vip = (await t.call('POST', '/api/v1/lists', { key, body: { name: 'VIP' } })).body.data.id as string

const ann = await contact({
  email: 'ann@acme.io',
  first_name: 'Ann',
  company: 'Acme',
  custom_fields: { plan: 'pro', seats: 12 },
  list_ids: [vip],
})
const bob = await contact({
  email: 'bob@globex.com',
  first_name: 'Bob',
  custom_fields: { plan: 'free', seats: 1 },
  list_ids: [vip],
})
const cat = await contact({ email: 'cat@initech.com', first_name: 'Cat', custom_fields: { plan: 'pro' } })
const dan = await contact({ email: 'dan@acme.io', status: 'unsubscribed' })
const opened = async (contactId: string, daysAgo: number) =>
  await recordEvent(t.ctx, {
    clientId: acme,
    type: 'email.opened',
    contactId,
    occurredAt: Date.now() - daysAgo * DAY,
    data: {},
  })
await opened(ann, 3)
await opened(bob, 45)
await opened(cat, 1)
await opened(cat, 2)

async function members(rule_groups: unknown, match?: string) {
  const res = await t.call('POST', '/api/v1/segments', {
    key,
    body: { name: 'S', rule_groups, ...(match ? { match } : {}) },
  })
  expect(res.status).toBe(200)
  const preview = await t.call('GET', `/api/v1/segments/${res.body.data.id}/contacts?limit=200`, { key })
  const ids = preview.body.data.map((c: { id: string }) => c.id).sort()
  expect(res.body.data.estimated_size).toBe(ids.length)
  return ids
}
const only = (...ids: string[]) => ids.sort()
const rule = (field: string, operator: string, value?: unknown) => ({
  field,
  operator,
  ...(value === undefined ? {} : { value }),
})
const all = (...rules: unknown[]) => [{ match: 'all', rules }]

describe('segments', () => {
  const cases: [string, unknown, string[], string?][] = [
    ['custom field eq', all(rule('custom.plan', 'eq', 'pro')), [ann, cat]],
    ['custom number gte', all(rule('custom.seats', 'gte', 10)), [ann]],
    ['list membership', all(rule('list', 'in', [vip])), [ann, bob]],
    ['not in list', all(rule('list', 'not_in', [vip])), [cat, dan]],
    [
      'opened in the last 30 days',
      all({ field: 'event', event: 'opened', operator: 'has', within_days: 30 }),
      [ann, cat],
    ],
    ['never opened', all({ field: 'event', event: 'opened', operator: 'has_not' }), [dan]],
    ['opened at least twice', all({ field: 'event', event: 'opened', operator: 'has', min_count: 2 }), [cat]],
    [
      "the issue's 3-rule segment",
      all(rule('custom.plan', 'eq', 'pro'), rule('list', 'in', [vip]), {
        field: 'event',
        event: 'opened',
        operator: 'has',
        within_days: 30,
      }),
      [ann],
    ],
    ['email ends_with, case-insensitive', all(rule('email', 'ends_with', '@ACME.io')), [ann, dan]],
    [
      'contains / not_contains',
      all(rule('email', 'contains', 'acme'), rule('first_name', 'not_contains', 'an')),
      [dan],
    ],
    ['status in', all(rule('status', 'in', ['unsubscribed', 'blocked'])), [dan]],
    ['status eq, any case', all(rule('status', 'eq', 'UNSUBSCRIBED')), [dan]],
    ['timezone neq a zone, any case', all(rule('timezone', 'neq', 'europe/berlin')), [ann, bob, cat, dan]],
    ['status contains a part', all(rule('status', 'contains', 'unsub')), [dan]],
    ['exists / not_exists', all(rule('company', 'exists')), [ann]],
    ['created recently', all(rule('created_at', 'within_last_days', 1)), [ann, bob, cat, dan]],
    ['created before 2001', all(rule('created_at', 'before', '2001-01-01T00:00:00Z')), []],
    [
      'any of two groups',
      [
        { match: 'all', rules: [rule('first_name', 'eq', 'bob')] },
        { match: 'all', rules: [rule('first_name', 'eq', 'cat')] },
      ],
      [bob, cat],
      'any',
    ],
    ['a LIKE wildcard in a value is literal', all(rule('email', 'contains', '%')), []],
  ]
  for (const [name, groups, expected, match] of cases) {
    test(name, async () => {
      expect(await members(groups, match)).toEqual(only(...expected))
    })
  }

  const invalid: [string, unknown, string, RegExp?][] = [
    [
      'unknown field',
      all(rule('shoe_size', 'eq', 1)),
      'rule_groups[0].rules[0].field',
      /unknown field "shoe_size"/,
    ],
    [
      'unknown operator',
      [
        { match: 'all', rules: [rule('email', 'eq', 'x')] },
        { match: 'all', rules: [rule('email', 'eq', 'x'), rule('email', 'like', 'x')] },
      ],
      'rule_groups[1].rules[1].operator',
    ],
    [
      'operator that does not fit the field',
      all(rule('list', 'eq', 'x')),
      'rule_groups[0].rules[0].operator',
    ],
    ['wrong value type', all(rule('email', 'in', 'x')), 'rule_groups[0].rules[0].value'],
    ['bad date', all(rule('created_at', 'after', 'yesterday')), 'rule_groups[0].rules[0].value'],
    [
      'status eq a value no contact can have',
      all(rule('status', 'eq', 'sleeping')),
      'rule_groups[0].rules[0].value',
      /^"sleeping" is not one of: subscribed, unsubscribed, bounced, complained, blocked$/,
    ],
    [
      'status neq a value no contact can have',
      all(rule('email', 'exists'), rule('status', 'neq', 1)),
      'rule_groups[0].rules[1].value',
      /^1 is not one of: subscribed, /,
    ],
    [
      'status in: the member outside the set',
      all(rule('status', 'in', ['bounced', 'asleep'])),
      'rule_groups[0].rules[0].value[1]',
      /^"asleep" is not one of: subscribed, unsubscribed, bounced, complained, blocked$/,
    ],
    [
      'status not_in: the member outside the set',
      all(rule('status', 'not_in', ['dormant'])),
      'rule_groups[0].rules[0].value[0]',
      /is not one of: subscribed, /,
    ],
    [
      'timezone eq a zone that does not exist',
      all(rule('timezone', 'eq', 'Mars/Olympus')),
      'rule_groups[0].rules[0].value',
      /^"Mars\/Olympus" is not an IANA time zone/,
    ],
    [
      'unknown list',
      all(rule('list', 'in', ['01a207fe-5049-7476-b6cd-bf3b1f254347'])),
      'rule_groups[0].rules[0].value[0]',
    ],
    [
      'unknown activity',
      all({ field: 'event', event: 'smiled', operator: 'has' }),
      'rule_groups[0].rules[0].event',
    ],
    [
      'bad within_days',
      all({ field: 'event', event: 'opened', operator: 'has', within_days: -1 }),
      'rule_groups[0].rules[0].within_days',
    ],
    ['unknown rule member', all({ ...rule('email', 'eq', 'x'), extra: 1 }), 'rule_groups[0].rules[0].extra'],
    ['bad group match', [{ match: 'some', rules: [rule('email', 'eq', 'x')] }], 'rule_groups[0].match'],
    ['no groups', [], 'rule_groups'],
  ]
  for (const [name, groups, field, message] of invalid) {
    test(`422: ${name} names ${field}`, async () => {
      const res = await t.call('POST', '/api/v1/segments', {
        key,
        body: { name: 'Bad', rule_groups: groups },
      })
      expect(res.status).toBe(422)
      const hit = res.body.error.details.find((d: { field: string }) => d.field === field)
      expect(hit).toBeDefined()
      if (message) expect(hit.message).toMatch(message)
    })
  }

  test("a list of another client is an unknown list, and another client's segment is 404", async () => {
    const res = await t.call('POST', '/api/v1/segments', {
      key: globexKey,
      body: { name: 'X', rule_groups: all(rule('list', 'in', [vip])) },
    })
    expect(res.status).toBe(422)
    const mine = (
      await t.call('POST', '/api/v1/segments', {
        key,
        body: { name: 'Mine', rule_groups: all(rule('email', 'exists')) },
      })
    ).body.data
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['GET', '/contacts'],
    ] as const) {
      const r = await t.call(method, `/api/v1/segments/${mine.id}${path}`, {
        key: globexKey,
        body: method === 'PATCH' ? { name: 'x' } : undefined,
      })
      expect(r.status).toBe(404)
    }
  })

  test('PATCH recomputes the estimate; the scheduled job refreshes it by name', async () => {
    const s = (
      await t.call('POST', '/api/v1/segments', {
        key,
        body: { name: 'Pro', rule_groups: all(rule('custom.plan', 'eq', 'pro')) },
      })
    ).body.data
    expect(s.estimated_size).toBe(2)
    const patched = await t.call('PATCH', `/api/v1/segments/${s.id}`, {
      key,
      body: { rule_groups: all(rule('custom.plan', 'eq', 'free')) },
    })
    expect(patched.body.data.estimated_size).toBe(1)
    await contact({ email: 'eve@acme.io', custom_fields: { plan: 'free' } })
    const { registerJobs } = await import('../../src/jobs')
    registerJobs(t.ctx)
    expect(t.ctx.jobs.list().map((j) => j.name)).toContain('segments.refresh')
    await t.ctx.jobs.runNow('segments.refresh')
    expect((await t.call('GET', `/api/v1/segments/${s.id}`, { key })).body.data.estimated_size).toBe(2)
    expect((await t.call('DELETE', `/api/v1/segments/${s.id}`, { key })).status).toBe(200)
  })
})
