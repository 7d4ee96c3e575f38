import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { invalid, type Scenario, scenarios } from '../helpers/scenarios'

const t = await createTestApp()
const acme = await t.client('Acme')
const globex = await t.client('Globex')
const acmeAdmin = await t.key({ scopes: ['admin:*'], clientId: acme })

describe('API key management', () => {
  test('create returns the key once; it works; list never shows it; revoke stops it at once', async () => {
    const created = await t.call('POST', '/api/v1/api-keys', {
      body: { name: 'CI', scopes: ['contacts:read', 'contacts:write'], client_id: acme, tier: 'growth' },
    })
    expect(created.status).toBe(200)
    const { key, id, prefix } = created.body.data
    expect(key).toMatch(/^hrld_[0-9A-Za-z]{43}$/)
    expect(prefix).toBe(key.slice(0, 12))
    expect(created.body.data).toMatchObject({ client_id: acme, tier: 'growth', revoked_at: null })

    expect((await t.call('GET', `/api/v1/clients/${acme}`, { key })).status).toBe(200)
    const list = await t.call('GET', '/api/v1/api-keys?limit=200')
    expect(list.text).not.toContain(key)
    expect(list.body.data.find((k: { id: string }) => k.id === id).key).toBeUndefined()

    const revoked = await t.call('DELETE', `/api/v1/api-keys/${id}`)
    expect(revoked.status).toBe(200)
    expect(revoked.body.data.revoked_at).not.toBeNull()
    expect((await t.call('GET', `/api/v1/clients/${acme}`, { key })).status).toBe(401)
  })

  const rows: Scenario[] = [
    invalid('unknown scope', { name: 'x', scopes: ['contacts:delete'] }, 'scopes[0]'),
    invalid('no scopes', { name: 'x', scopes: [] }, 'scopes'),
    invalid('unknown tier', { name: 'x', scopes: ['admin:*'], tier: 'gold' }, 'tier'),
    invalid(
      'expiry in the past',
      { name: 'x', scopes: ['admin:*'], expires_at: '2001-01-01T00:00:00Z' },
      'expires_at',
    ),
    invalid(
      'client that does not exist',
      { name: 'x', scopes: ['admin:*'], client_id: '01a207fe-5049-7476-b6cd-bf3b1f254347' },
      'client_id',
    ),
    invalid(
      'tenant admin minting for another client',
      { name: 'x', scopes: ['admin:*'], client_id: globex },
      'client_id',
      { key: () => acmeAdmin },
    ),
    {
      name: 'tenant admin minting an unlimited key',
      key: () => acmeAdmin,
      body: { name: 'x', scopes: ['contacts:read'], tier: 'unlimited' },
      status: 403,
      code: 'FORBIDDEN',
    },
    {
      name: 'key without admin:*',
      key: async () => await t.key({ scopes: ['contacts:write'] }),
      body: { name: 'x', scopes: ['contacts:read'] },
      status: 403,
      code: 'FORBIDDEN',
    },
  ]
  scenarios(t, { method: 'POST', path: '/api/v1/api-keys', key: () => t.adminKey }, rows)

  test('a tenant admin key mints keys for its own client only, and sees only those', async () => {
    const res = await t.call('POST', '/api/v1/api-keys', {
      key: acmeAdmin,
      body: { name: 'mine', scopes: ['contacts:read'] },
    })
    expect(res.status).toBe(200)
    expect(res.body.data.client_id).toBe(acme)
    const list = await t.call('GET', '/api/v1/api-keys?limit=200', { key: acmeAdmin })
    expect(list.body.data.every((k: { client_id: string }) => k.client_id === acme)).toBe(true)
    const platformKeys = await t.call('GET', '/api/v1/api-keys?limit=200')
    const otherId = platformKeys.body.data.find((k: { client_id: string | null }) => k.client_id === null).id
    expect((await t.call('DELETE', `/api/v1/api-keys/${otherId}`, { key: acmeAdmin })).status).toBe(404)
  })

  test('a key with an expiry stops working after it', async () => {
    const soon = new Date(Date.now() + 60_000).toISOString()
    const res = await t.call('POST', '/api/v1/api-keys', {
      body: { name: 'temp', scopes: ['contacts:read'], expires_at: soon },
    })
    expect(res.body.data.expires_at).toBe(soon)
  })
})
