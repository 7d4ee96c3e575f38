import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { webhooks } from '../../src/db/schema'
import { createTestApp } from '../helpers/app'
import { startDnsServer } from '../helpers/dns-server'
import { scenarios } from '../helpers/scenarios'

const t = await createTestApp({ env: { HERALD_WEBHOOK_ALLOW_PRIVATE: '1' } })
// Without allow-private the URL's host is looked up at creation: through this server.
const dns = await startDnsServer()
dns.hosts.set('hooks.example.com', ['93.184.215.14'])
const strictApp = await createTestApp({ env: { HERALD_DNS_SERVERS: dns.address } })
const acme = await t.client('Acme')
const globex = await t.client('Globex')
const acmeKey = await t.key({ scopes: ['contacts:read'], clientId: acme })
const globexKey = await t.key({ scopes: ['contacts:read'], clientId: globex })
const strictKey = await strictApp.key({ scopes: ['contacts:read'], clientId: await strictApp.client('S') })

const URL_OK = 'https://hooks.example.com/herald'
const create = async (key = acmeKey, body: unknown = { url: URL_OK, events: ['email.delivered'] }) =>
  (await t.call('POST', '/api/v1/webhooks', { key, body })).body.data

describe('webhook CRUD', () => {
  test('create answers the resource and the secret once; get/list never show it', async () => {
    const res = await t.call('POST', '/api/v1/webhooks', {
      key: acmeKey,
      body: { url: URL_OK, events: ['email.delivered', 'reply.received'] },
    })
    expect(res.status).toBe(200)
    const hook = res.body.data
    expect(hook).toMatchObject({
      url: URL_OK,
      events: ['email.delivered', 'reply.received'],
      active: true,
      client_id: acme,
    })
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(hook.secret.slice(6), 'base64')).toHaveLength(32)
    const got = await t.call('GET', `/api/v1/webhooks/${hook.id}`, { key: acmeKey })
    expect(got.body.data.secret).toBeUndefined()
    expect(got.text).not.toContain(hook.secret)
    const list = await t.call('GET', '/api/v1/webhooks', { key: acmeKey })
    expect(list.body.data.map((w: { id: string }) => w.id)).toContain(hook.id)
    expect(list.text).not.toContain(hook.secret)
    // The secret is stored encrypted.
    const [stored] = await t.ctx.db
      .select({ secret: webhooks.secret })
      .from(webhooks)
      .where(eq(webhooks.id, hook.id))
    expect(stored!.secret).not.toContain(hook.secret.slice(6))
  })

  test('the secret is shown again only to admin:*', async () => {
    const hook = await create()
    const denied = await t.call('GET', `/api/v1/webhooks/${hook.id}/secret`, { key: acmeKey })
    expect(denied.status).toBe(403)
    expect(denied.body.error.details.required_scope).toBe('admin:*')
    const shown = await t.call('GET', `/api/v1/webhooks/${hook.id}/secret`)
    expect(shown.body.data).toMatchObject({ id: hook.id, secret: hook.secret, previous_secret: null })
  })

  test('PATCH changes members partially; active false/true; DELETE removes', async () => {
    const hook = await create()
    const patched = await t.call('PATCH', `/api/v1/webhooks/${hook.id}`, {
      key: acmeKey,
      body: { events: ['email.opened'] },
    })
    expect(patched.body.data).toMatchObject({ url: URL_OK, events: ['email.opened'], active: true })
    const off = await t.call('PATCH', `/api/v1/webhooks/${hook.id}`, {
      key: acmeKey,
      body: { active: false },
    })
    expect(off.body.data).toMatchObject({ active: false, disabled_reason: 'manual' })
    const on = await t.call('PATCH', `/api/v1/webhooks/${hook.id}`, { key: acmeKey, body: { active: true } })
    expect(on.body.data).toMatchObject({ active: true, disabled_reason: null })
    const del = await t.call('DELETE', `/api/v1/webhooks/${hook.id}`, { key: acmeKey })
    expect(del.body.data).toEqual({ id: hook.id, deleted: true })
    expect((await t.call('GET', `/api/v1/webhooks/${hook.id}`, { key: acmeKey })).status).toBe(404)
  })

  test('rotate-secret (admin:*) answers a new secret; both sign for 24 h', async () => {
    const hook = await create()
    // It answers a secret, as revealing one does: a key without admin:* is refused.
    const refused = await t.call('POST', `/api/v1/webhooks/${hook.id}/rotate-secret`, { key: acmeKey })
    expect(refused.status).toBe(403)
    expect(refused.body.error.details.required_scope).toBe('admin:*')
    const acmeAdmin = await t.key({ scopes: ['admin:*'], clientId: acme })
    const rotated = await t.call('POST', `/api/v1/webhooks/${hook.id}/rotate-secret`, { key: acmeAdmin })
    expect(rotated.status).toBe(200)
    expect(rotated.body.data.secret).toMatch(/^whsec_/)
    expect(rotated.body.data.secret).not.toBe(hook.secret)
    const shown = await t.call('GET', `/api/v1/webhooks/${hook.id}/secret`)
    expect(shown.body.data).toMatchObject({ secret: rotated.body.data.secret, previous_secret: hook.secret })
    const expires = Date.parse(shown.body.data.previous_secret_expires_at)
    expect(Math.abs(expires - Date.now() - 24 * 3600_000)).toBeLessThan(60_000)
  })

  test('a platform-wide key must name the client on create; it lists all clients', async () => {
    const missing = await t.call('POST', '/api/v1/webhooks', {
      body: { url: URL_OK, events: ['email.opened'] },
    })
    expect(missing.status).toBe(422)
    const made = await t.call('POST', `/api/v1/webhooks?client_id=${globex}`, {
      body: { url: URL_OK, events: ['email.opened'] },
    })
    expect(made.body.data.client_id).toBe(globex)
    const filtered = await t.call('GET', `/api/v1/webhooks?client_id=${globex}`)
    expect(filtered.body.data.every((w: { client_id: string }) => w.client_id === globex)).toBe(true)
  })

  test('list paginates', async () => {
    const key = await t.key({ scopes: [], clientId: await t.client('Paged') })
    for (let i = 0; i < 3; i++) await create(key)
    const first = await t.call('GET', '/api/v1/webhooks?limit=2', { key })
    expect(first.body.pagination).toMatchObject({ total: 3, limit: 2, has_more: true })
    const second = await t.call(
      'GET',
      `/api/v1/webhooks?limit=2&cursor=${first.body.pagination.next_cursor}`,
      { key },
    )
    expect(second.body.data).toHaveLength(1)
  })
})

describe('tenant isolation: another client’s webhook is 404 on every route', async () => {
  const theirs = await create(globexKey)
  const deliveryId = Bun.randomUUIDv7()
  scenarios(t, { method: 'GET', path: `/api/v1/webhooks/${theirs.id}`, key: () => acmeKey }, [
    { name: 'get', status: 404, code: 'NOT_FOUND' },
    { name: 'patch', method: 'PATCH', body: { active: false }, status: 404, code: 'NOT_FOUND' },
    { name: 'delete', method: 'DELETE', status: 404, code: 'NOT_FOUND' },
    {
      name: 'test',
      method: 'POST',
      path: `/api/v1/webhooks/${theirs.id}/test`,
      body: { event: 'email.opened' },
      status: 404,
    },
    {
      name: 'rotate (tenant admin of another client)',
      method: 'POST',
      path: `/api/v1/webhooks/${theirs.id}/rotate-secret`,
      key: async () => await t.key({ scopes: ['admin:*'], clientId: acme }),
      status: 404,
    },
    { name: 'deliveries', path: `/api/v1/webhooks/${theirs.id}/deliveries`, status: 404 },
    {
      name: 'retry',
      method: 'POST',
      path: `/api/v1/webhooks/${theirs.id}/deliveries/${deliveryId}/retry`,
      status: 404,
    },
    {
      name: 'secret (tenant admin of another client)',
      path: `/api/v1/webhooks/${theirs.id}/secret`,
      key: async () => await t.key({ scopes: ['admin:*'], clientId: acme }),
      status: 404,
    },
  ])
  test('list shows only the caller’s own; client_id is ignored for a tenant key', async () => {
    const list = await t.call('GET', `/api/v1/webhooks?client_id=${globex}`, { key: acmeKey })
    expect(list.body.data.length).toBeGreaterThan(0)
    expect(list.body.data.every((w: { client_id: string }) => w.client_id === acme)).toBe(true)
  })
  test('still intact for its owner', async () => {
    expect((await t.call('GET', `/api/v1/webhooks/${theirs.id}`, { key: globexKey })).body.data.active).toBe(
      true,
    )
  })
})

describe('validation', () => {
  scenarios(
    t,
    { method: 'POST', path: '/api/v1/webhooks', key: () => acmeKey },
    [
      { name: 'no body members', body: {}, status: 422, code: 'VALIDATION_FAILED', field: 'url' },
      { name: 'missing events', body: { url: URL_OK }, status: 422, field: 'events' },
      { name: 'empty events', body: { url: URL_OK, events: [] }, status: 422, field: 'events' },
      {
        name: 'unknown event',
        body: { url: URL_OK, events: ['email.sent'] },
        status: 422,
        field: 'events[0]',
      },
      {
        name: 'duplicate event',
        body: { url: URL_OK, events: ['email.opened', 'email.opened'] },
        status: 422,
        field: 'events[1]',
      },
      { name: 'events not strings', body: { url: URL_OK, events: [1] }, status: 422 },
      { name: 'not a URL', body: { url: 'hooks', events: ['email.opened'] }, status: 422, field: 'url' },
      {
        // This app allows private targets, so http is taken too: the message says so.
        name: 'ftp URL',
        body: { url: 'ftp://example.com/', events: ['email.opened'] },
        status: 422,
        field: 'url',
        message: 'must use https or http',
      },
      {
        name: 'credentials in URL',
        body: { url: 'https://u:p@example.com/', events: ['email.opened'] },
        status: 422,
        field: 'url',
      },
      { name: 'unknown member', body: { url: URL_OK, events: ['email.opened'], secret: 'x' }, status: 422 },
      {
        name: 'URL too long',
        body: { url: `https://e.com/${'a'.repeat(2048)}`, events: ['email.opened'] },
        status: 422,
      },
      {
        name: 'no credential',
        key: () => null,
        body: { url: URL_OK, events: ['email.opened'] },
        status: 401,
      },
      {
        name: 'all seven events',
        body: {
          url: URL_OK,
          events: [
            'email.delivered',
            'email.opened',
            'email.clicked',
            'email.bounced',
            'contact.unsubscribed',
            'campaign.complete',
            'reply.received',
          ],
        },
        status: 200,
      },
    ],
    'create: ',
  )

  scenarios(
    strictApp,
    { method: 'POST', path: '/api/v1/webhooks', key: () => strictKey },
    [
      {
        name: 'http',
        body: { url: 'http://hooks.example.com/', events: ['email.opened'] },
        status: 422,
        field: 'url',
        message: 'must use https',
      },
      {
        name: 'loopback',
        body: { url: 'https://127.0.0.1/', events: ['email.opened'] },
        status: 422,
        field: 'url',
      },
      {
        name: 'localhost',
        body: { url: 'https://localhost/', events: ['email.opened'] },
        status: 422,
        field: 'url',
      },
      {
        name: 'private 10/8',
        body: { url: 'https://10.1.2.3/', events: ['email.opened'] },
        status: 422,
        field: 'url',
      },
      {
        name: 'private 192.168',
        body: { url: 'https://192.168.1.1/', events: ['email.opened'] },
        status: 422,
        field: 'url',
      },
      {
        name: 'metadata',
        body: { url: 'https://169.254.169.254/', events: ['email.opened'] },
        status: 422,
        field: 'url',
      },
      {
        name: 'IPv6 loopback',
        body: { url: 'https://[::1]/', events: ['email.opened'] },
        status: 422,
        field: 'url',
      },
      {
        name: 'IPv6 unique local',
        body: { url: 'https://[fd00::1]/', events: ['email.opened'] },
        status: 422,
        field: 'url',
      },
      {
        name: 'IPv4-mapped private',
        body: { url: 'https://[::ffff:10.0.0.1]/', events: ['email.opened'] },
        status: 422,
        field: 'url',
      },
      {
        name: 'single-label host',
        body: { url: 'https://intranet/', events: ['email.opened'] },
        status: 422,
        field: 'url',
      },
      { name: 'public https', body: { url: URL_OK, events: ['email.opened'] }, status: 200 },
      { name: 'public IP', body: { url: 'https://93.184.215.14/', events: ['email.opened'] }, status: 200 },
    ],
    'strict create: ',
  )

  test('PATCH validates the same way, and unknown members', async () => {
    const hook = (
      await strictApp.call('POST', '/api/v1/webhooks', {
        key: strictKey,
        body: { url: URL_OK, events: ['email.opened'] },
      })
    ).body.data
    const path = `/api/v1/webhooks/${hook.id}`
    for (const body of [
      { url: 'https://10.0.0.1/' },
      { events: [] },
      { events: ['nope'] },
      { active: 'yes' },
      { foo: 1 },
    ]) {
      const res = await strictApp.call('PATCH', path, { key: strictKey, body })
      expect(res.status).toBe(422)
    }
  })

  test('test endpoint requires a known event', async () => {
    const hook = await create()
    const res = await t.call('POST', `/api/v1/webhooks/${hook.id}/test`, {
      key: acmeKey,
      body: { event: 'x' },
    })
    expect(res.status).toBe(422)
  })
})
