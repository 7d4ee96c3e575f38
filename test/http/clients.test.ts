import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { scenarios } from '../helpers/scenarios'

const t = await createTestApp()
const acme = await t.client('Acme')
const globex = await t.client('Globex')
const acmeKey = await t.key({ scopes: ['campaigns:read'], clientId: acme })
const acmeAdmin = await t.key({ scopes: ['admin:*'], clientId: acme })
const platformReader = await t.key({ scopes: ['campaigns:read'] })

describe('clients and tenancy', () => {
  const rows: {
    name: string
    key: () => string
    method: string
    path: () => string
    body?: unknown
    status: number
    code?: string
    field?: string
  }[] = [
    {
      name: 'tenant reads its own client',
      key: () => acmeKey,
      method: 'GET',
      path: () => `/api/v1/clients/${acme}`,
      status: 200,
    },
    {
      name: "tenant reads another tenant's client: 404, never 403",
      key: () => acmeKey,
      method: 'GET',
      path: () => `/api/v1/clients/${globex}`,
      status: 404,
      code: 'NOT_FOUND',
    },
    {
      name: 'tenant admin cannot create clients',
      key: () => acmeAdmin,
      method: 'POST',
      path: () => '/api/v1/clients',
      body: { name: 'Mine' },
      status: 403,
      code: 'FORBIDDEN',
    },
    {
      name: "tenant admin cannot patch another tenant's client (404)",
      key: () => acmeAdmin,
      method: 'PATCH',
      path: () => `/api/v1/clients/${globex}`,
      body: { name: 'x' },
      status: 404,
      code: 'NOT_FOUND',
    },
    {
      name: 'tenant admin cannot suspend its own client',
      key: () => acmeAdmin,
      method: 'PATCH',
      path: () => `/api/v1/clients/${acme}`,
      body: { status: 'suspended' },
      status: 403,
      code: 'FORBIDDEN',
    },
    {
      name: 'platform key reads any client',
      key: () => platformReader,
      method: 'GET',
      path: () => `/api/v1/clients/${globex}`,
      status: 200,
    },
    {
      name: 'platform key creates a client',
      key: () => platformReader,
      method: 'POST',
      path: () => '/api/v1/clients',
      body: { name: 'Initech', industry: 'software' },
      status: 200,
    },
    {
      name: 'bad status on PATCH',
      key: () => t.adminKey,
      method: 'PATCH',
      path: () => `/api/v1/clients/${acme}`,
      body: { status: 'gone' },
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'status',
    },
    {
      name: 'platform key creates a client with a time zone',
      key: () => t.adminKey,
      method: 'POST',
      path: () => '/api/v1/clients',
      body: { name: 'Zoned', timezone: 'America/New_York' },
      status: 200,
    },
    {
      name: 'unknown time zone on create',
      key: () => t.adminKey,
      method: 'POST',
      path: () => '/api/v1/clients',
      body: { name: 'Nowhere', timezone: 'Mars/Olympus_Mons' },
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'timezone',
    },
    {
      name: 'unknown time zone on PATCH',
      key: () => t.adminKey,
      method: 'PATCH',
      path: () => `/api/v1/clients/${acme}`,
      body: { timezone: 'Europe/Atlantis' },
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'timezone',
    },
    {
      name: 'an empty time zone is not a zone (null clears)',
      key: () => t.adminKey,
      method: 'PATCH',
      path: () => `/api/v1/clients/${acme}`,
      body: { timezone: '' },
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'timezone',
    },
    {
      name: 'time zone not a string',
      key: () => t.adminKey,
      method: 'PATCH',
      path: () => `/api/v1/clients/${acme}`,
      body: { timezone: 5 },
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'timezone',
    },
    {
      name: 'tenant admin cannot set its own time zone (platform-wide key)',
      key: () => acmeAdmin,
      method: 'PATCH',
      path: () => `/api/v1/clients/${acme}`,
      body: { timezone: 'Europe/Paris' },
      status: 403,
      code: 'FORBIDDEN',
    },
    {
      name: 'name too long',
      key: () => t.adminKey,
      method: 'POST',
      path: () => '/api/v1/clients',
      body: { name: 'n'.repeat(201) },
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'name',
    },
  ]
  scenarios(t, { method: 'GET', path: '/api/v1/clients' }, rows)

  test('a tenant key lists only its own client, and client_id cannot widen it', async () => {
    const res = await t.call('GET', `/api/v1/clients?limit=200`, { key: acmeKey })
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([acme])
    expect(res.body.pagination.total).toBe(1)
  })

  test('create answers 200 with the client, including client_id and timestamps', async () => {
    const res = await t.call('POST', '/api/v1/clients', { body: { name: 'Umbrella' } })
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ name: 'Umbrella', status: 'active', industry: null })
    expect(res.body.data.client_id).toBe(res.body.data.id)
    expect(res.body.data.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  })

  test('PATCH is partial: members left out keep their values', async () => {
    const id = (await t.call('POST', '/api/v1/clients', { body: { name: 'Partial', industry: 'retail' } }))
      .body.data.id
    const res = await t.call('PATCH', `/api/v1/clients/${id}`, { body: { name: 'Partial 2' } })
    expect(res.body.data).toMatchObject({ name: 'Partial 2', industry: 'retail', status: 'active' })
    const cleared = await t.call('PATCH', `/api/v1/clients/${id}`, { body: { industry: null } })
    expect(cleared.body.data.industry).toBeNull()
  })

  test('time zone: none by default (null), set on create, changed, kept by other changes, cleared by null', async () => {
    const plain = await t.call('POST', '/api/v1/clients', { body: { name: 'No zone' } })
    expect(plain.body.data.timezone).toBeNull()
    const made = await t.call('POST', '/api/v1/clients', {
      body: { name: 'NY', timezone: 'America/New_York' },
    })
    expect(made.status).toBe(200)
    const id = made.body.data.id
    expect(made.body.data.timezone).toBe('America/New_York')
    const changed = await t.call('PATCH', `/api/v1/clients/${id}`, { body: { timezone: 'Asia/Kolkata' } })
    expect(changed.body.data.timezone).toBe('Asia/Kolkata')
    const renamed = await t.call('PATCH', `/api/v1/clients/${id}`, { body: { name: 'NY 2' } })
    expect(renamed.body.data.timezone).toBe('Asia/Kolkata')
    expect((await t.call('GET', `/api/v1/clients/${id}`, { key: acmeKey })).status).toBe(404)
    const read = await t.call('GET', `/api/v1/clients/${id}`)
    expect(read.body.data.timezone).toBe('Asia/Kolkata')
    const refused = await t.call('PATCH', `/api/v1/clients/${id}`, { body: { timezone: 'Asia/Nowhere' } })
    expect(refused.status).toBe(422)
    expect((await t.call('GET', `/api/v1/clients/${id}`)).body.data.timezone).toBe('Asia/Kolkata')
    const cleared = await t.call('PATCH', `/api/v1/clients/${id}`, { body: { timezone: null } })
    expect(cleared.body.data.timezone).toBeNull()
    const listed = await t.call('GET', '/api/v1/clients?limit=200')
    const row = listed.body.data.find((c: { id: string }) => c.id === id)
    expect(row).toHaveProperty('timezone', null)
  })
})
