import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'

const t = await createTestApp()
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe('HTTP conventions', () => {
  test('health needs no credential and answers status, version, timestamp at the top level', async () => {
    const r = await t.call('GET', '/api/v1/health', { key: null })
    expect(r.status).toBe(200)
    expect(r.body.status).toBe('ok')
    expect(r.body.version).toBe('1.0.0')
    expect(Date.parse(r.body.timestamp)).toBeGreaterThan(0)
  })

  test('every response carries X-Request-Id equal to the error body request_id', async () => {
    const r = await t.call('GET', '/api/v1/nothing-here')
    expect(r.headers.get('x-request-id')).toMatch(UUID)
    expect(r.body.error.request_id).toBe(r.headers.get('x-request-id'))
  })

  test('a UUID X-Request-Id from the caller is kept; anything else is replaced', async () => {
    const mine = '3b241101-e2bb-4255-8caf-4136c566a962'
    const kept = await t.call('GET', '/api/v1/clients', { headers: { 'x-request-id': mine } })
    expect(kept.headers.get('x-request-id')).toBe(mine)
    const replaced = await t.call('GET', '/api/v1/clients', { headers: { 'x-request-id': 'not a uuid' } })
    expect(replaced.headers.get('x-request-id')).toMatch(UUID)
  })

  const cases: {
    name: string
    method: string
    path: string
    raw?: string
    body?: unknown
    headers?: Record<string, string>
    status: number
    code: string
    allow?: string
    message?: RegExp
  }[] = [
    { name: 'unknown route', method: 'GET', path: '/api/v1/unknown', status: 404, code: 'NOT_FOUND' },
    { name: 'unknown route outside the API', method: 'GET', path: '/nope', status: 404, code: 'NOT_FOUND' },
    {
      name: 'known path, wrong method',
      method: 'PUT',
      path: '/api/v1/clients',
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      allow: 'GET, POST',
    },
    {
      name: 'DELETE on a client',
      method: 'DELETE',
      path: '/api/v1/clients/01a207fe-5049-7476-b6cd-bf3b1f254347',
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      allow: 'GET, PATCH',
    },
    {
      name: 'malformed JSON',
      method: 'POST',
      path: '/api/v1/clients',
      raw: '{"name": ',
      headers: { 'content-type': 'application/json' },
      status: 400,
      code: 'INVALID_REQUEST',
      message: /not valid JSON/,
    },
    {
      name: 'non-JSON content type',
      method: 'POST',
      path: '/api/v1/clients',
      raw: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
    },
    {
      name: '+json content types count as JSON',
      method: 'POST',
      path: '/api/v1/clients',
      raw: '{"name":5}',
      headers: { 'content-type': 'application/vnd.api+json' },
      status: 422,
      code: 'VALIDATION_FAILED',
      message: /name/,
    },
    {
      name: 'body over 1 MiB',
      method: 'POST',
      path: '/api/v1/clients',
      raw: JSON.stringify({ name: 'x'.repeat(1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
    },
    {
      name: 'a path id that is not a UUID',
      method: 'GET',
      path: '/api/v1/clients/12345',
      status: 404,
      code: 'NOT_FOUND',
    },
    {
      name: 'a well-formed id that does not exist',
      method: 'GET',
      path: '/api/v1/clients/01a207fe-5049-7476-b6cd-bf3b1f254347',
      status: 404,
      code: 'NOT_FOUND',
    },
    {
      name: 'a body that is not an object',
      method: 'POST',
      path: '/api/v1/clients',
      body: [1, 2],
      status: 422,
      code: 'VALIDATION_FAILED',
    },
  ]
  for (const c of cases) {
    test(`${c.name} → ${c.status} ${c.code}`, async () => {
      const r = await t.call(c.method, c.path, { raw: c.raw, body: c.body, headers: c.headers })
      expect(r.status).toBe(c.status)
      expect(r.headers.get('content-type')).toContain('application/json')
      expect(r.body.error.code).toBe(c.code)
      expect(typeof r.body.error.message).toBe('string')
      if (c.allow) expect(r.headers.get('allow')).toBe(c.allow)
      if (c.message) expect(r.body.error.message).toMatch(c.message)
      expect(r.text).not.toContain('    at ') // never a stack trace
    })
  }

  test('422 lists every failing field, and unknown members are rejected', async () => {
    const r = await t.call('POST', '/api/v1/clients', { body: { name: '', industry: 5, colour: 'red' } })
    expect(r.status).toBe(422)
    expect(r.body.error.code).toBe('VALIDATION_FAILED')
    const fields = r.body.error.details.map((d: { field: string }) => d.field).sort()
    expect(fields).toEqual(['colour', 'industry', 'name'])
    for (const d of r.body.error.details) expect(d.message.length).toBeGreaterThan(3)
    // Elysia's own validation output must never leak
    expect(r.text).not.toContain('"type":"validation"')
  })

  test('a missing required member is named', async () => {
    const r = await t.call('POST', '/api/v1/clients', { body: {} })
    expect(r.status).toBe(422)
    expect(r.body.error.details).toEqual([{ field: 'name', message: 'is required' }])
    expect(r.body.error.message).toBe('name: is required')
  })

  test('a body over the limit without Content-Length (chunked) is still refused', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024))
    let sent = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 20) return controller.close()
        sent++
        controller.enqueue(chunk)
      },
    })
    const res = await t.app.handle(
      new Request('http://localhost:8080/api/v1/clients', {
        method: 'POST',
        body: stream,
        headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
      }),
    )
    expect(res.status).toBe(413)
  })

  test('nothing is written when validation fails', async () => {
    const before = (await t.call('GET', '/api/v1/clients')).body.pagination.total
    await t.call('POST', '/api/v1/clients', { body: { name: 'x'.repeat(201) } })
    const after = (await t.call('GET', '/api/v1/clients')).body.pagination.total
    expect(after).toBe(before)
  })

  test('prefixed ids are accepted in paths', async () => {
    const hex = t.defaultClientId.replaceAll('-', '')
    const r = await t.call('GET', `/api/v1/clients/cli_${hex}`)
    expect(r.status).toBe(200)
    expect(r.body.data.id).toBe(t.defaultClientId)
  })

  test('while draining, requests get 503 UNAVAILABLE', async () => {
    t.ctx.lifecycle.draining = true
    try {
      const r = await t.call('GET', '/api/v1/clients')
      expect(r.status).toBe(503)
      expect(r.body.error.code).toBe('UNAVAILABLE')
    } finally {
      t.ctx.lifecycle.draining = false
    }
  })

  test('protected-resource metadata (RFC 9728) names this server and the OAuth scope subset of the spec', async () => {
    const r = await t.call('GET', '/.well-known/oauth-protected-resource', { key: null })
    expect(r.status).toBe(200)
    expect(r.body.resource).toBe('http://localhost:8080')
    expect(r.body.authorization_servers).toEqual(['http://localhost:8080'])
    expect(r.body.scopes_supported).toContain('campaigns:launch')
    expect(r.body.scopes_supported).not.toContain('admin:*')
    expect(r.body.scopes_supported).toHaveLength(11)
  })
})
