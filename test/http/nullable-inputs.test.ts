import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { scenarios } from '../helpers/scenarios'

// An optional member that the answer shows as nullable takes null on create as "none": clients
// that serialise unset members as null (Python None, Go nil pointers) must not get a 422 for it.
// Found by the acceptance review against the binary: industry, description and reason refused
// null while first_name, subject and the like took it.

const t = await createTestApp()
const platform = await t.key({ scopes: ['admin:*'] })
const acme = await t.client('Acme')
const key = await t.key({ scopes: ['admin:*'], clientId: acme })
const asAcme = () => key

describe('null for an optional, nullable member → 200 with null', () => {
  const rows: {
    name: string
    path: string
    body: Record<string, unknown>
    member: string
    key: () => string
  }[] = [
    {
      name: 'client industry',
      path: '/api/v1/clients',
      body: { name: 'N', industry: null },
      member: 'industry',
      key: () => platform,
    },
    {
      name: 'list description',
      path: '/api/v1/lists',
      body: { name: 'L', description: null },
      member: 'description',
      key: asAcme,
    },
    {
      name: 'suppression reason',
      path: '/api/v1/suppressions',
      body: { email: 'n@acme.io', reason: null },
      member: 'reason',
      key: asAcme,
    },
    {
      name: 'contact first_name (already so)',
      path: '/api/v1/contacts',
      body: { email: 'f@acme.io', first_name: null },
      member: 'first_name',
      key: asAcme,
    },
    {
      name: 'campaign subject (already so)',
      path: '/api/v1/campaigns',
      body: { name: 'C', subject: null },
      member: 'subject',
      key: asAcme,
    },
  ]
  for (const r of rows)
    test(r.name, async () => {
      const res = await t.call('POST', r.path, { key: r.key(), body: r.body })
      expect(res.status).toBe(200)
      expect(res.body.data[r.member]).toBeNull()
    })
})

describe('null is still refused where it is not "none"', () => {
  scenarios(t, { method: 'POST', path: '/api/v1/lists', key: asAcme }, [
    { name: 'list name', body: { name: null }, status: 422, code: 'VALIDATION_FAILED', field: 'name' },
    {
      name: 'client name',
      path: '/api/v1/clients',
      key: () => platform,
      body: { name: null },
      status: 422,
      field: 'name',
    },
    {
      name: 'suppression email',
      path: '/api/v1/suppressions',
      body: { email: null },
      status: 422,
      field: 'email',
    },
    {
      name: 'a description that is no string',
      body: { name: 'L', description: 5 },
      status: 422,
      field: 'description',
    },
  ])
})
