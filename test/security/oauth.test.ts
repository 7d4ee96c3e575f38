import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SignJWT } from 'jose'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createAppContext } from '../../src/create-context'
import { agentRegistrations, oauthClients } from '../../src/db/schema'
import { sha256Hex } from '../../src/lib/crypto'
import { newId } from '../../src/lib/ids'
import { silentLogger } from '../../src/lib/log'
import { signJwt } from '../../src/services/oauth/keys'
import { createTestApp } from '../helpers/app'
import { serveIdpKeys } from '../helpers/idp'
import { freePort } from '../helpers/ports'
import { storeEnv } from '../helpers/store-env'
import { type Browser, PORTAL_ENV, signIn } from '../http/admin/portal-helpers'
import { authorizeQuery, basic, consentForm, form, overHttp, pkce } from '../http/oauth/oauth-client'

// What an anonymous caller or a self-registered client could do with the OAuth server and the
// agent registration: fetch unbounded metadata documents, bounce errors to any https URL, get
// admin:* pre-ticked, leave a workspace, use a grant it never registered, present tokens for
// another audience, act platform-wide. One row per hole, over real HTTP where redirects matter.

// --- a local server for Client ID Metadata Documents (HERALD_WEBHOOK_ALLOW_PRIVATE=1 allows it)
const CB = 'http://127.0.0.1:9/cb'
const fetches = new Map<string, number>()
const streamed = new Map<string, number>()
const CHUNK = 64 * 1024
const TEN_MB = 10 * 1024 * 1024

/** 10 MB, 64 KiB at a time with a pause between chunks, counting what was handed to the socket. */
function slowBody(path: string): ReadableStream<Uint8Array> {
  streamed.set(path, 0)
  return new ReadableStream({
    async pull(controller) {
      const sent = streamed.get(path)!
      if (sent >= TEN_MB) return controller.close()
      await Bun.sleep(2)
      streamed.set(path, sent + CHUNK)
      controller.enqueue(new Uint8Array(CHUNK).fill(0x20))
    },
  })
}

const docs = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(req): Response {
    const url = new URL(req.url)
    const path = url.pathname
    fetches.set(path, (fetches.get(path) ?? 0) + 1)
    const id = `${url.origin}${path}`
    if (path === '/big.json')
      return new Response(slowBody(path), { headers: { 'content-type': 'application/json' } })
    if (path === '/declared.json')
      return new Response(slowBody(path), {
        headers: { 'content-type': 'application/json', 'content-length': String(TEN_MB) },
      })
    const maxAge = url.searchParams.get('max-age') ?? '600'
    return Response.json(
      {
        client_id: `${id}${url.search}`,
        client_name: url.searchParams.get('name') ?? `Doc ${path}`,
        redirect_uris: [CB],
      },
      { headers: { 'cache-control': `max-age=${maxAge}` } },
    )
  },
})
const docUrl = (name: string) => `http://127.0.0.1:${docs.port}/${name}`
const fetchesUnder = (prefix: string) =>
  [...fetches].filter(([p]) => p.startsWith(prefix)).reduce((n, [, c]) => n + c, 0)

// --- the app under test, listening on a real port
const idp = await serveIdpKeys()
const ISSUER = 'https://idp.example.test'
const port = freePort()
const base = `http://127.0.0.1:${port}`
const t = await createTestApp({
  env: {
    ...PORTAL_ENV,
    HERALD_PUBLIC_URL: base,
    HERALD_WEBHOOK_ALLOW_PRIVATE: '1',
    HERALD_IDJAG_ISSUERS: `${ISSUER}=${idp.jwksUrl}`,
  },
})
let owner: Browser

beforeAll(async () => {
  t.app.listen({ port, hostname: '127.0.0.1' })
  owner = await signIn(t, undefined, overHttp(base))
})
afterAll(async () => {
  await t.app.stop(true)
  docs.stop(true)
})

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(base + path, { headers, redirect: 'manual' })

const authorizeUrl = (clientId: string, extra: Record<string, string> = {}, redirectUri = CB) => {
  const q = authorizeQuery({ clientId, redirectUri, scope: 'contacts:read', challenge: pkce().challenge })
  for (const [k, v] of Object.entries(extra)) q.set(k, v)
  return `/oauth2/authorize?${q}`
}

const operatorClient = async (body: Record<string, unknown>) => {
  const res = await t.call('POST', '/api/v1/oauth-clients', {
    body: {
      name: 'Operator app',
      redirect_uris: [CB],
      confidential: false,
      scopes: ['contacts:read'],
      ...body,
    },
  })
  expect(res.status).toBe(200)
  return res.body.data as { oauth_client_id: string; client_secret?: string }
}

const selfRegistered = async (redirectUri: string, grantTypes?: string[]) => {
  const res = await fetch(`${base}/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Self app',
      redirect_uris: [redirectUri],
      ...(grantTypes ? { grant_types: grantTypes } : {}),
    }),
  })
  expect(res.status).toBe(201)
  return ((await res.json()) as { client_id: string }).client_id
}

const idJag = (claims: Record<string, unknown>) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'oauth-id-jag+jwt' })
    .setIssuer(ISSUER)
    .setSubject('user-7')
    .setAudience(base)
    .setIssuedAt()
    .setExpirationTime('5m')
    .setJti(Bun.randomUUIDv7())
    .sign(idp.privateKey)

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString())

describe('OAuth and agent registration: what a self-registered or anonymous caller can reach', () => {
  test('3. a 10 MB metadata document (streamed, no Content-Length) is refused after about 64 KiB', async () => {
    const res = await get(authorizeUrl(docUrl('big.json')), { 'x-forwarded-for': '198.51.100.1' })
    expect(res.status).toBe(400)
    expect(await res.text()).toContain('64 KiB')
    // What the remote server had handed over when Herald answered: a few chunks, not 10 MB.
    expect(streamed.get('/big.json')!).toBeLessThan(1024 * 1024)
  })

  test('3. a metadata document whose Content-Length is over 64 KiB is refused without reading it', async () => {
    const res = await get(authorizeUrl(docUrl('declared.json')), { 'x-forwarded-for': '198.51.100.2' })
    expect(res.status).toBe(400)
    expect(await res.text()).toContain('64 KiB')
    expect(streamed.get('/declared.json')!).toBeLessThan(1024 * 1024)
  })

  test('3. the same metadata URL asked for twice → fetched once (cached; no new fetch or row)', async () => {
    const url = authorizeUrl(docUrl('cached.json'))
    const first = await get(url, { 'x-forwarded-for': '198.51.100.3' })
    const second = await get(url, { 'x-forwarded-for': '198.51.100.3' })
    // Not signed in: both pass the checks and go on to the sign-in.
    expect(first.status).toBe(303)
    expect(second.status).toBe(303)
    expect(second.headers.get('location')).toStartWith('/admin/login?next=')
    expect(fetches.get('/cached.json')).toBe(1)
  })

  test('3. a document is kept for its max-age clamped to 1 min .. 24 h, then fetched again', async () => {
    const clock = { t: Date.UTC(2026, 5, 1), now: () => clock.t }
    const c = await createTestApp({ overHttp: true, clock, env: { HERALD_WEBHOOK_ALLOW_PRIVATE: '1' } })
    const ask = async (name: string) => {
      const res = await c.call('GET', authorizeUrl(docUrl(name)), { key: null })
      expect(res.status).toBe(303)
    }
    const start = clock.t
    for (const [name, path, longest] of [
      ['short.json?max-age=0', '/short.json', 60_000],
      ['long.json?max-age=999999999', '/long.json', 24 * 3_600_000],
    ] as const) {
      clock.t = start
      await ask(name)
      clock.t = start + longest - 1000
      await ask(name)
      expect(fetches.get(path)).toBe(1)
      clock.t = start + longest + 1000
      await ask(name)
      expect(fetches.get(path)).toBe(2)
    }
  })

  test('3. 30 authorize requests naming 30 metadata URLs from one IP → later ones 429, fetches bounded', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 30; i++) {
      const res = await get(authorizeUrl(docUrl(`flood/${i}.json`)), { 'x-forwarded-for': '198.51.100.4' })
      statuses.push(res.status)
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
        expect(await res.text()).toContain('Too many')
      } else await res.body?.cancel()
    }
    expect(statuses[0]).toBe(303)
    expect(statuses.at(-1)).toBe(429)
    expect(fetchesUnder('/flood/')).toBeLessThanOrEqual(10)
  })

  test('7. a self-registered (RFC 7591) client: a bad authorize request is shown on Herald’s page, never redirected', async () => {
    const id = await selfRegistered('https://evil.example/cb')
    const res = await get(authorizeUrl(id, { response_type: 'token' }, 'https://evil.example/cb'))
    expect(res.headers.get('location')).toBeNull()
    expect(res.status).toBe(400)
    expect(await res.text()).toContain('response_type')
  })

  test('7. a metadata-document client: a bad authorize request is shown on Herald’s page, never redirected', async () => {
    const res = await get(authorizeUrl(docUrl('evil-doc.json'), { code_challenge_method: 'plain' }), {
      'x-forwarded-for': '198.51.100.5',
    })
    expect(res.headers.get('location')).toBeNull()
    expect(res.status).toBe(400)
  })

  test('7. the consent page marks a self-registered client as unverified and shows its redirect host', async () => {
    const id = await selfRegistered('https://evil.example/cb')
    const page = await owner.get(authorizeUrl(id, {}, 'https://evil.example/cb'))
    expect(page.status).toBe(200)
    expect(page.text).toContain('unverified')
    expect(page.text).toContain('evil.example')
    // An operator's client is not marked.
    const { oauth_client_id } = await operatorClient({})
    const trusted = await owner.get(authorizeUrl(oauth_client_id))
    expect(trusted.status).toBe(200)
    expect(trusted.text).not.toContain('unverified')
  })

  test("7. a metadata document's client_name that is not one line of text: the consent page names the host instead", async () => {
    for (const [i, name] of ['Evil\u0000App', 'Evil\r\nApp', '\u200b\u200b'].entries()) {
      const id = `${docUrl(`named-${i}.json`)}?${new URLSearchParams({ name })}`
      const page = await owner.get(authorizeUrl(id))
      expect({ name, status: page.status }).toEqual({ name, status: 200 })
      expect(page.text).toContain(`<h1>Allow 127.0.0.1:${docs.port} to use Herald?</h1>`)
    }
  })

  test('7. an operator-registered client keeps the error redirect (RFC 6749)', async () => {
    const { oauth_client_id } = await operatorClient({})
    const res = await get(authorizeUrl(oauth_client_id, { response_type: 'token', state: 's1' }))
    expect(res.status).toBe(303)
    const to = new URL(res.headers.get('location')!)
    expect(to.origin + to.pathname).toBe(CB)
    expect(to.searchParams.get('error')).toBe('unsupported_response_type')
  })

  test('12. an anonymous agent asking for admin:* → 422 naming scopes', async () => {
    const res = await t.call('POST', '/agent/auth/register', {
      key: null,
      body: { client_name: 'Greedy', identity_type: 'anonymous', scopes: ['contacts:read', 'admin:*'] },
    })
    expect(res.status).toBe(422)
    expect(res.body.error.details).toContainEqual(expect.objectContaining({ field: 'scopes' }))
  })

  test('12. the approval form: workspace not pre-selected, write scopes unticked, read scopes ticked; admin:* cannot be granted', async () => {
    const acme = await t.client('Acme 12')
    const reg = await t.call('POST', '/agent/auth/register', {
      key: null,
      body: {
        client_name: 'Asker 12',
        identity_type: 'anonymous',
        scopes: ['contacts:read', 'contacts:write'],
        client_id: acme,
      },
    })
    expect(reg.status).toBe(200)
    const listed = await owner.get('/admin/agents')
    const id = /href="\/admin\/agents\/([0-9a-f-]{36})">Review<span class="visually-hidden"> Asker 12</.exec(
      listed.text,
    )?.[1]
    const review = await owner.get(`/admin/agents/${id}`)
    expect(review.status).toBe(200)
    expect(review.text).toContain(`<option value="${acme}"`)
    expect(review.text).not.toContain(`<option value="${acme}" selected`)
    expect(review.text).toContain('value="contacts:read" checked')
    expect(review.text).not.toContain('value="contacts:write" checked')

    // A pending anonymous registration holding admin:* (made before the register refusal) cannot be approved with it.
    const now = Date.now()
    const legacy = newId()
    await t.ctx.db.insert(agentRegistrations).values({
      id: legacy,
      handleHash: sha256Hex(`reg_${legacy}`),
      status: 'pending',
      clientName: 'Legacy 12',
      identityType: 'anonymous',
      requestedScopes: ['contacts:read', 'admin:*'],
      clientId: null,
      createdAt: now,
      updatedAt: now,
      expiresAt: now + 3_600_000,
    })
    const page = await owner.get(`/admin/agents/${legacy}`)
    expect(page.text).not.toContain('value="admin:*" checked')
    const approved = await owner.post(`/admin/agents/${legacy}/approve`, {
      client_id: acme,
      scopes: ['contacts:read', 'admin:*'],
    })
    expect(approved.status).toBe(422)
    expect(approved.text).toContain('admin:*')
  })

  test('13a. a client registered for workspace A: the consent page offers only A, and a POST naming B is refused', async () => {
    const a = await t.client('A 13')
    const b = await t.client('B 13')
    const { oauth_client_id } = await operatorClient({ client_id: a })
    const page = await owner.get(authorizeUrl(oauth_client_id))
    expect(page.status).toBe(200)
    const f = consentForm(page.text)
    expect(f.workspaces).toEqual([a])
    owner.csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? ''
    const answer = await owner.post(f.action, { client_id: b, scope: f.scopes, decision: 'allow' })
    expect(answer.status).toBe(400)
    expect(answer.location).toBeNull()
  })

  test('13b. a public self-registered client may not use a grant it did not register (jwt-bearer) → unauthorized_client', async () => {
    const id = await selfRegistered(CB)
    const res = await form(base, '/oauth2/token', {
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      client_id: id,
      assertion: await idJag({ client_id: id }),
    })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('unauthorized_client')
  })

  test('13c. an ID-JAG without client_id → invalid_grant', async () => {
    const { oauth_client_id, client_secret } = await operatorClient({ confidential: true, redirect_uris: [] })
    const bearer = (claims: Record<string, unknown>) =>
      idJag(claims).then((assertion) =>
        form(
          base,
          '/oauth2/token',
          { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion },
          { authorization: basic(oauth_client_id, client_secret!) },
        ),
      )
    const without = await bearer({})
    expect(without.status).toBe(400)
    expect(without.body.error).toBe('invalid_grant')
    expect(String(without.body.error_description)).toContain('client_id')
    expect((await bearer({ client_id: oauth_client_id })).status).toBe(200)
  })

  test('13d. one of Herald’s access tokens minted for another audience is refused; its own audience still works', async () => {
    const a = await t.client('A 13d')
    const { oauth_client_id, client_secret } = await operatorClient({
      confidential: true,
      redirect_uris: [],
      client_id: a,
    })
    const tok = await form(
      base,
      '/oauth2/token',
      { grant_type: 'client_credentials' },
      { authorization: basic(oauth_client_id, client_secret!) },
    )
    expect(tok.status).toBe(200)
    const good = tok.body.access_token as string
    const auth = (jwt: string) => ({ authorization: `Bearer ${jwt}` })
    expect((await get('/api/v1/contacts', auth(good))).status).toBe(200)
    const foreign = await signJwt(t.ctx, { ...claimsOf(good), aud: 'https://other-api.example' })
    const refused = await get('/api/v1/contacts', auth(foreign))
    expect(refused.status).toBe(401)
  })

  test('13e. with no workspace at all, client credentials never mint a platform-wide token', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-sec-'))
    const ctx = await createAppContext(
      loadConfig({ data: dataDir }, { HERALD_PUBLIC_URL: 'http://localhost:8080', ...(await storeEnv()) }),
      {
        log: silentLogger,
      },
    )
    try {
      const app = createApp(ctx)
      const id = newId()
      const secret = 'hocs_zero-workspace-secret'
      await ctx.db.insert(oauthClients).values({
        id,
        name: 'Nowhere',
        clientId: null,
        redirectUris: [],
        confidential: true,
        secretHash: sha256Hex(secret),
        scopes: ['contacts:read'],
        source: 'operator',
        createdAt: Date.now(),
      })
      const res = await app.handle(
        new Request('http://localhost:8080/oauth2/token', {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: basic(id, secret),
          },
          body: 'grant_type=client_credentials',
        }),
      )
      const body = (await res.json()) as Record<string, string>
      expect(body.access_token).toBeUndefined()
      expect(res.status).toBe(400)
      expect(body.error).toBe('unauthorized_client')
    } finally {
      ctx.jobs.stop()
      await ctx.store.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
