import { expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'

// The discovery documents a browser-based MCP client (the MCP Inspector) reads from another
// origin: the protected-resource metadata (RFC 9728), like the authorization-server metadata,
// answers with `Access-Control-Allow-Origin: *` and has a CORS preflight that allows the
// MCP-Protocol-Version header.

const t = await createTestApp()
const ORIGIN = { origin: 'http://localhost:6274' }

for (const path of [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp/v1',
  '/.well-known/oauth-authorization-server',
]) {
  test(`${path}: readable from any origin, with a preflight`, async () => {
    const get = await t.call('GET', path, { key: null, headers: ORIGIN })
    expect(get.status).toBe(200)
    expect(get.headers.get('access-control-allow-origin')).toBe('*')
    const preflight = await t.call('OPTIONS', path, {
      key: null,
      headers: {
        ...ORIGIN,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'mcp-protocol-version',
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    // The MCP SDK's discovery requests carry MCP-Protocol-Version.
    expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version')
  })
}

test('other REST operations stay without CORS', async () => {
  const res = await t.call('GET', '/api/v1/clients', { headers: ORIGIN })
  expect(res.status).toBe(200)
  expect(res.headers.get('access-control-allow-origin')).toBeNull()
})
