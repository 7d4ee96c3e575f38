import { expect, test } from 'bun:test'
import { toPrefixedId } from '../../src/lib/ids'
import { createTestApp } from '../helpers/app'
import { journeyTenant } from '../helpers/journey'

// A value that is not an id is refused with a message naming the forms that are accepted. The
// messages said "must be a client id (UUID)" (or "must be an id (UUID or prefixed)", "must be a
// list id", "(a UUID)") while cli_… and every other prefixed form are taken too; now one text per
// kind, from the prefix (src/lib/ids.ts notAnIdMessage): "must be a client id (cli_… or a UUID)".
// Each row also gives the prefixed form the message names, which must be taken (not a 422 on it).

const t = await createTestApp()
const acme = await journeyTenant(t, 'Acme')
const platform = await t.key({ scopes: ['admin:*'] })
const clientId = acme.clientId
const journey = await acme.call('POST', '/api/v1/journeys', {
  name: 'J',
  nodes: [{ id: 't', type: 'trigger', trigger: 'manual' }],
})
const sequence = await acme.call('POST', '/api/v1/sequences', {
  name: 'S',
  steps: [{ subject: 'Hi', body_text: 'Hi' }],
})
const segment = await acme.call('POST', '/api/v1/segments', {
  name: 'Pros',
  rule_groups: [{ match: 'all', rules: [{ field: 'custom.plan', operator: 'eq', value: 'pro' }] }],
})
const campaign = { id: crypto.randomUUID() }
const contact = { id: crypto.randomUUID() }

interface Row {
  what: string
  method: string
  /** The request with the id in `id`'s place. */
  path: (id: string) => string
  body?: (id: string) => unknown
  key: () => string
  raw?: string
  field: string
  message: string
  /** A real id of the kind, which the prefixed form must name. */
  good: () => string
  kind: Parameters<typeof toPrefixedId>[0]
}

const rows: Row[] = [
  {
    what: 'list filter ?client_id=',
    method: 'GET',
    path: (id) => `/api/v1/lists?client_id=${id}`,
    key: () => platform,
    field: 'client_id',
    message: 'must be a client id (cli_… or a UUID)',
    good: () => clientId,
    kind: 'client',
  },
  {
    what: 'create ?client_id=',
    method: 'POST',
    path: (id) => `/api/v1/lists?client_id=${id}`,
    body: () => ({ name: `L ${crypto.randomUUID()}` }),
    key: () => platform,
    field: 'client_id',
    message: 'must be a client id (cli_… or a UUID)',
    good: () => clientId,
    kind: 'client',
  },
  {
    what: 'API key client_id',
    method: 'POST',
    path: () => '/api/v1/api-keys',
    body: (id) => ({ name: 'k', scopes: ['contacts:read'], client_id: id }),
    key: () => platform,
    field: 'client_id',
    message: 'must be a client id (cli_… or a UUID)',
    good: () => clientId,
    kind: 'client',
  },
  {
    what: 'OAuth client client_id',
    method: 'POST',
    path: () => '/api/v1/oauth-clients',
    body: (id) => ({
      name: 'app',
      confidential: true,
      scopes: ['contacts:read'],
      redirect_uris: ['https://app.example/cb'],
      client_id: id,
    }),
    key: () => platform,
    field: 'client_id',
    message: 'must be a client id (cli_… or a UUID)',
    good: () => clientId,
    kind: 'client',
  },
  ...(['campaign', 'contact', 'journey', 'sequence'] as const).map(
    (kind): Row => ({
      what: `messages ?${kind}_id=`,
      method: 'GET',
      path: (id) => `/api/v1/messages?${kind}_id=${id}`,
      key: () => acme.key,
      field: `${kind}_id`,
      message: `must be a ${kind} id (${{ campaign: 'cmp', contact: 'con', journey: 'jrn', sequence: 'seq' }[kind]}_… or a UUID)`,
      good: () => ({ campaign, contact, journey, sequence })[kind].id,
      kind,
    }),
  ),
  {
    what: 'analytics ?campaign_id=',
    method: 'GET',
    path: (id) => `/api/v1/analytics/funnel?campaign_id=${id}`,
    key: () => acme.key,
    field: 'campaign_id',
    message: 'must be a campaign id (cmp_… or a UUID)',
    good: () => campaign.id,
    kind: 'campaign',
  },
  {
    what: "a campaign's list_id (body)",
    method: 'POST',
    path: () => '/api/v1/campaigns',
    body: (id) => ({ name: `C ${crypto.randomUUID()}`, list_id: id }),
    key: () => acme.key,
    field: 'list_id',
    message: 'must be a list id (lst_… or a UUID)',
    good: () => acme.list.id,
    kind: 'list',
  },
  {
    what: 'import ?list_id=',
    method: 'POST',
    path: (id) => `/api/v1/contacts/imports?list_id=${id}`,
    raw: 'email\na@b.io\n',
    key: () => acme.key,
    field: 'list_id',
    message: 'must be a list id (lst_… or a UUID)',
    good: () => acme.list.id,
    kind: 'list',
  },
  {
    what: "a journey node's segment_id",
    method: 'POST',
    path: () => '/api/v1/journeys',
    body: (id) => ({
      name: `J ${crypto.randomUUID()}`,
      nodes: [{ id: 't', type: 'trigger', trigger: 'segment_entered', segment_id: id }],
    }),
    key: () => acme.key,
    field: 'nodes[t].segment_id',
    message: 'must be a segment id (seg_… or a UUID)',
    good: () => segment.id,
    kind: 'segment',
  },
]

const send = (r: Row, id: string) =>
  t.call(r.method, r.path(id), {
    key: r.key(),
    body: r.body?.(id),
    ...(r.raw === undefined ? {} : { raw: r.raw, headers: { 'content-type': 'text/csv' } }),
  })

test.each(
  rows.map((r) => [r.what, r] as const),
)('%s: not an id → 422 naming the forms taken', async (_, r) => {
  const res = await send(r, 'abc')
  expect(res.status).toBe(422)
  expect(res.body.error.details).toEqual([{ field: r.field, message: r.message }])
  const prefixed = toPrefixedId(r.kind, r.good())
  expect(r.message).toContain(`${prefixed.slice(0, 4)}…`)
  const taken = await send(r, prefixed)
  expect(taken.status).toBeLessThan(300)
})
