import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { apiKeys } from '../../src/db/schema'
import { createTestApp } from '../helpers/app'

const t = await createTestApp()
const META = 'http://localhost:8080/.well-known/oauth-protected-resource'
const tenant = await t.client('Acme')
const readOnly = await t.key({ scopes: ['contacts:read'], clientId: tenant })
const writer = await t.key({ scopes: ['contacts:write'], clientId: tenant })
const revoked = await t.key({ scopes: ['admin:*'] })
const expired = await t.key({ scopes: ['admin:*'] })

// Revoke and expire two keys directly in the store.
await t.ctx.db
  .update(apiKeys)
  .set({ revokedAt: Date.now() })
  .where(eq(apiKeys.prefix, revoked.slice(0, 12)))
await t.ctx.db
  .update(apiKeys)
  .set({ expiresAt: Date.now() - 1000 })
  .where(eq(apiKeys.prefix, expired.slice(0, 12)))

interface Row {
  name: string
  method: string
  path: string
  headers?: Record<string, string>
  status: number
  code?: string
  www?: string
  requiredScope?: string
}

/** A credential that is there but no valid key: 401, and WWW-Authenticate says invalid_token. */
const invalidToken = (name: string, headers: Record<string, string>): Row => ({
  name,
  method: 'GET',
  path: '/api/v1/clients',
  headers,
  status: 401,
  code: 'UNAUTHORIZED',
  www: `Bearer error="invalid_token", resource_metadata="${META}"`,
})

const rows: Row[] = [
  {
    name: 'no credential',
    method: 'GET',
    path: '/api/v1/clients',
    status: 401,
    code: 'UNAUTHORIZED',
    www: `Bearer resource_metadata="${META}"`,
  },
  invalidToken('Basic credential', { authorization: 'Basic dXNlcjpwYXNz' }),
  invalidToken('unknown Bearer key', { authorization: 'Bearer hrld_notakey' }),
  invalidToken('unknown X-Api-Key', { 'x-api-key': 'nope' }),
  invalidToken('empty Bearer', { authorization: 'Bearer ' }),
  invalidToken('revoked key', { authorization: `Bearer ${revoked}` }),
  invalidToken('expired key', { authorization: `Bearer ${expired}` }),
  {
    name: 'Bearer key reads (any key suffices)',
    method: 'GET',
    path: '/api/v1/clients',
    headers: { authorization: `Bearer ${readOnly}` },
    status: 200,
  },
  {
    name: 'X-Api-Key reads',
    method: 'GET',
    path: '/api/v1/clients',
    headers: { 'x-api-key': readOnly },
    status: 200,
  },
  {
    name: 'scope missing: names the scope',
    method: 'GET',
    path: '/api/v1/api-keys',
    headers: { 'x-api-key': writer },
    status: 403,
    code: 'FORBIDDEN',
    requiredScope: 'admin:*',
  },
  {
    name: 'admin:* grants admin operations',
    method: 'GET',
    path: '/api/v1/api-keys',
    headers: { 'x-api-key': t.adminKey },
    status: 200,
  },
  { name: 'health needs nothing', method: 'GET', path: '/api/v1/health', status: 200 },
  { name: 'openapi.json needs nothing', method: 'GET', path: '/openapi.json', status: 200 },
  { name: 'docs need nothing', method: 'GET', path: '/docs', status: 200 },
]

describe('authentication and scopes', () => {
  for (const r of rows) {
    test(`${r.name} → ${r.status}`, async () => {
      const res = await t.call(r.method, r.path, { key: null, headers: r.headers })
      expect(res.status).toBe(r.status)
      if (r.code) expect(res.body.error.code).toBe(r.code)
      if (r.www) expect(res.headers.get('www-authenticate')).toBe(r.www)
      else expect(res.headers.get('www-authenticate')).toBeNull()
      if (r.requiredScope) {
        expect(res.body.error.details.required_scope).toBe(r.requiredScope)
        expect(res.body.error.message).toContain(r.requiredScope)
      }
    })
  }

  test('authenticated responses never contain the key', async () => {
    const res = await t.call('GET', '/api/v1/api-keys?limit=200')
    expect(res.text).not.toContain(readOnly)
    expect(res.text).not.toContain(t.adminKey)
  })

  test('keys of a suspended client get 403; reactivating restores access', async () => {
    const c = await t.client('Suspended Co')
    const k = await t.key({ scopes: ['contacts:read'], clientId: c })
    expect((await t.call('GET', `/api/v1/clients/${c}`, { key: k })).status).toBe(200)
    expect((await t.call('PATCH', `/api/v1/clients/${c}`, { body: { status: 'suspended' } })).status).toBe(
      200,
    )
    const blocked = await t.call('GET', `/api/v1/clients/${c}`, { key: k })
    expect(blocked.status).toBe(403)
    expect(blocked.body.error.message).toContain('suspended')
    expect((await t.call('PATCH', `/api/v1/clients/${c}`, { body: { status: 'active' } })).status).toBe(200)
    expect((await t.call('GET', `/api/v1/clients/${c}`, { key: k })).status).toBe(200)
  })

  test('last_used_at is recorded on use', async () => {
    const k = await t.key({ scopes: ['contacts:read'] })
    await t.call('GET', '/api/v1/clients', { key: k })
    const row = (
      await t.ctx.db
        .select()
        .from(apiKeys)
        .where(eq(apiKeys.prefix, k.slice(0, 12)))
        .limit(1)
    )[0]!
    expect(row.lastUsedAt).not.toBeNull()
  })
})
