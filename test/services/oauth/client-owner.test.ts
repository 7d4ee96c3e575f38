import { expect, test } from 'bun:test'
import { createTestApp } from '../../helpers/app'
import { invalid, scenarios } from '../../helpers/scenarios'

// The workspace an OAuth client belongs to (credentialOwner in src/db/tenant.ts, shared with API
// keys): a tenant admin key's own client, never another's; a platform-wide key's named client,
// which must exist, or none (platform-wide). The API key rows are in test/services/api-keys.test.ts.

const t = await createTestApp()
const acme = await t.client('Acme')
const globex = await t.client('Globex')
const acmeAdmin = await t.key({ scopes: ['admin:*'], clientId: acme })
const app = {
  name: 'svc',
  confidential: true,
  scopes: ['contacts:read'],
  redirect_uris: ['https://app.example/cb'],
}

scenarios(t, { method: 'POST', path: '/api/v1/oauth-clients', key: () => t.adminKey }, [
  invalid(
    'a client that does not exist',
    { ...app, client_id: '01a207fe-5049-7476-b6cd-bf3b1f254347' },
    'client_id',
  ),
  invalid('a tenant admin naming another client', { ...app, client_id: globex }, 'client_id', {
    key: () => acmeAdmin,
  }),
  invalid('a client_id that is no id', { ...app, client_id: 'nope' }, 'client_id'),
])

const owners: [name: string, key: string, owner: { client_id?: string }, expected: string | null][] = [
  ['a tenant admin key, no client_id: its own client', acmeAdmin, {}, acme],
  ['a tenant admin key naming its own client', acmeAdmin, { client_id: acme }, acme],
  ['a platform-wide key naming a client', t.adminKey, { client_id: globex }, globex],
  ['a platform-wide key, no client_id: platform-wide', t.adminKey, {}, null],
]
test.each(owners)('%s', async (_, key, owner, expected) => {
  const res = await t.call('POST', '/api/v1/oauth-clients', { key, body: { ...app, ...owner } })
  expect(res.status).toBe(200)
  expect(res.body.data.client_id).toBe(expected)
})
