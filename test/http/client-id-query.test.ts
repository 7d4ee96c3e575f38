import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { scenarios } from '../helpers/scenarios'

// client_id is a query parameter on every list and create (the spec's convention). The few
// operations that read it from the body (contact search, API keys, OAuth clients, agent
// registration) dropped ?client_id= silently: a platform-wide key's search ran over every client,
// and POST /api-keys?client_id=… made a platform-wide key. Found by the acceptance review against
// the binary. Now ?client_id= means the body member; both given must agree.

const t = await createTestApp()
const platform = await t.key({ scopes: ['admin:*'] })
const acme = await t.client('Acme')
const globex = await t.client('Globex')
const acmeKey = await t.key({ scopes: ['contacts:read'], clientId: acme })
for (const [client, email] of [
  [acme, 'ann@acme.io'],
  [globex, 'ann@globex.io'],
] as const)
  await t.call('POST', `/api/v1/contacts?client_id=${client}`, { key: platform, body: { email } })

const search = async (query: string, body: Record<string, unknown> = {}, key = platform) => {
  const res = await t.call('POST', `/api/v1/contacts/search${query}`, {
    key,
    body: { query: 'ann', ...body },
  })
  expect(res.status).toBe(200)
  return res.body.data.map((c: { email: string }) => c.email).toSorted()
}

describe('contact search', () => {
  test('platform key, no client_id: every client', async () => {
    expect(await search('')).toEqual(['ann@acme.io', 'ann@globex.io'])
  })
  test('platform key, ?client_id=: that client only', async () => {
    expect(await search(`?client_id=${acme}`)).toEqual(['ann@acme.io'])
  })
  test('platform key, client_id in the body: that client only (as before)', async () => {
    expect(await search('', { client_id: globex })).toEqual(['ann@globex.io'])
  })
  test('platform key, both places agreeing', async () => {
    expect(await search(`?client_id=${acme}`, { client_id: acme })).toEqual(['ann@acme.io'])
  })
  test('tenant key: ?client_id= of another client is ignored', async () => {
    expect(await search(`?client_id=${globex}`, {}, acmeKey)).toEqual(['ann@acme.io'])
  })
})

describe('refusals', () => {
  scenarios(t, { method: 'POST', path: '/api/v1/contacts/search', key: () => platform }, [
    {
      name: 'query and body disagree',
      path: `/api/v1/contacts/search?client_id=${acme}`,
      body: { query: 'ann', client_id: globex },
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'client_id',
    },
    {
      name: '?client_id= that is no id',
      path: '/api/v1/contacts/search?client_id=nope',
      body: { query: 'ann' },
      status: 422,
      field: 'client_id',
    },
    {
      name: 'API key for a client named in the query and another in the body',
      path: `/api/v1/api-keys?client_id=${acme}`,
      body: { name: 'k', scopes: ['contacts:read'], client_id: globex },
      status: 422,
      field: 'client_id',
    },
  ])
})

describe('creates that take client_id in the body read ?client_id= too', () => {
  test('POST /api-keys?client_id= makes a tenant-scoped key, not a platform-wide one', async () => {
    const res = await t.call('POST', `/api/v1/api-keys?client_id=${acme}`, {
      key: platform,
      body: { name: 'crm', scopes: ['contacts:read'] },
    })
    expect(res.status).toBe(200)
    expect(res.body.data.client_id).toBe(acme)
    const seen = await t.call('GET', '/api/v1/contacts', { key: res.body.data.key })
    expect(seen.body.data.map((c: { email: string }) => c.email)).toEqual(['ann@acme.io'])
  })
  test('POST /oauth-clients?client_id= binds the OAuth client to that workspace', async () => {
    const res = await t.call('POST', `/api/v1/oauth-clients?client_id=${globex}`, {
      key: platform,
      body: {
        name: 'svc',
        redirect_uris: ['https://app.example.com/cb'],
        confidential: true,
        scopes: ['contacts:read'],
      },
    })
    expect(res.status).toBe(200)
    expect(res.body.data.client_id).toBe(globex)
  })
  test('the document lists client_id as a query parameter of each', async () => {
    const doc = (await t.call('GET', '/openapi.json', { key: null })).body
    for (const [path, method] of [
      ['/api/v1/contacts/search', 'post'],
      ['/api/v1/api-keys', 'post'],
      ['/api/v1/oauth-clients', 'post'],
      ['/agent/auth/register', 'post'],
    ] as const)
      expect(
        doc.paths[path][method].parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`),
      ).toContain('query:client_id')
  })
})
