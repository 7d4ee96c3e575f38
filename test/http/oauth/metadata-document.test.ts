import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp } from '../../helpers/app'
import { freePort } from '../../helpers/ports'
import { type Browser, PORTAL_ENV, signIn } from '../admin/portal-helpers'
import { authorizeAs, authorizeQuery, exchangeCode, overHttp, pkce } from './oauth-client'

// Client ID Metadata Documents (DESIGN §5): an https client_id URL whose JSON names its
// redirect_uris. Served here by a local server over http, which HERALD_WEBHOOK_ALLOW_PRIVATE=1
// (development) allows; without it only https and public addresses are fetched.

const REDIRECT = 'http://127.0.0.1:9/cimd-callback'
const docs = new Map<string, unknown>()
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(req) {
    const doc = docs.get(new URL(req.url).pathname)
    return doc === undefined ? new Response('no', { status: 404 }) : Response.json(doc)
  },
})
const docUrl = (name: string) => `http://127.0.0.1:${server.port}/${name}.json`

const port = freePort()
const base = `http://127.0.0.1:${port}`
const t = await createTestApp({
  env: { ...PORTAL_ENV, HERALD_PUBLIC_URL: base, HERALD_WEBHOOK_ALLOW_PRIVATE: '1' },
})
const strict = await createTestApp({ env: PORTAL_ENV })
let owner: Browser

beforeAll(async () => {
  t.app.listen({ port, hostname: '127.0.0.1' })
  owner = await signIn(t, undefined, overHttp(base))
})
afterAll(async () => {
  await t.app.stop(true)
  server.stop(true)
})

const authorizeUrl = (clientId: string, redirectUri = REDIRECT) => {
  const q = authorizeQuery({ clientId, redirectUri, scope: 'contacts:read', challenge: pkce().challenge })
  return `/oauth2/authorize?${q}`
}

describe('Client ID Metadata Documents', () => {
  test('metadata says they are supported', async () => {
    const meta = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()
    expect(meta.client_id_metadata_document_supported).toBe(true)
  })

  test('a client named by its document URL completes the code flow with no registration', async () => {
    const id = docUrl('good')
    docs.set('/good.json', { client_id: id, client_name: 'Doc App', redirect_uris: [REDIRECT] })
    const { verifier, challenge } = pkce()
    const { code, redirect } = await authorizeAs(
      owner,
      { clientId: id, redirectUri: REDIRECT, scope: 'contacts:read', challenge },
      { workspace: t.defaultClientId },
    )
    expect(redirect.searchParams.get('iss')).toBe(base)
    const tok = await exchangeCode(base, { code: code!, redirectUri: REDIRECT, verifier, clientId: id })
    expect(tok.status).toBe(200)
    const claims = JSON.parse(
      Buffer.from((tok.body.access_token as string).split('.')[1]!, 'base64url').toString(),
    )
    expect(claims.client_id).toBe(id)
    const page = await owner.get(authorizeUrl(id))
    expect(page.text).toContain('Doc App')
  })

  test.each([
    [
      'a document naming another client_id',
      'other',
      (id: string) => ({ client_id: `${id}x`, redirect_uris: [REDIRECT] }),
    ],
    [
      'a redirect URI the document does not list',
      'unlisted',
      (id: string) => ({ client_id: id, redirect_uris: ['http://127.0.0.1:9/else'] }),
    ],
    [
      'a confidential client',
      'conf',
      (id: string) => ({
        client_id: id,
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    ],
    ['no document at the URL', 'missing', null],
  ])('%s is shown as an error page, never redirected to', async (_, name, make) => {
    const id = docUrl(encodeURIComponent(name))
    if (make) docs.set(new URL(id).pathname, make(id))
    const res = await owner.get(authorizeUrl(id))
    expect(res.status).toBe(400)
    expect(res.location).toBeNull()
  })

  test('without the development switch an http or private client_id URL is not fetched', async () => {
    const b = await signIn(strict)
    const res = await b.get(authorizeUrl(docUrl('good')))
    expect(res.status).toBe(400)
    expect(res.text).toContain('must be an https URL')
    const https = await b.get(authorizeUrl('https://127.0.0.1/client.json'))
    expect(https.status).toBe(400)
    expect(https.text).toContain('public address')
  })
})
