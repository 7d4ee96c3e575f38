import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { EXCLUDED } from '../../../src/http/mcp/excluded'
import { MCP_BODY_LIMIT } from '../../../src/http/mcp/server'
import { operations } from '../../../src/http/rest/registry'
import { createImportWorker } from '../../../src/services/imports/runner'
import { createTestApp } from '../../helpers/app'
import { answerOf, connectMcp, type McpClient, SDKS, serveApp } from '../../helpers/mcp'
import { eventually } from '../../helpers/receiver'
import { startTestSender } from '../../helpers/sender'

// Both official SDK clients against the app served on a real port: what an assistant sees and
// can do with a key, and that every answer is the REST answer (same codes, same tenancy).

const t = await createTestApp()
// The send worker runs as in `herald serve` (capture provider); imports are driven by hand.
startTestSender(t)
const imports = createImportWorker(t.ctx)
const http = serveApp(t.app)
afterAll(() => http.stop())

const acme = await t.client('Acme')
const globex = await t.client('Globex')
const writer = await t.key({ scopes: ['admin:*'], clientId: acme })
const reader = await t.key({ scopes: ['contacts:read'], clientId: acme })
const other = await t.key({ scopes: ['admin:*'], clientId: globex })

const toolCount = operations.filter((o) => !(o.id in EXCLUDED)).length

for (const sdk of SDKS) {
  describe(`MCP over HTTP with the ${sdk} SDK client`, () => {
    let mcp: McpClient
    let readOnly: McpClient
    let stranger: McpClient
    beforeAll(async () => {
      mcp = await connectMcp(sdk, http.url, writer)
      readOnly = await connectMcp(sdk, http.url, reader)
      stranger = await connectMcp(sdk, http.url, other)
    })
    afterAll(async () => {
      for (const c of [mcp, readOnly, stranger]) await c.close()
    })

    const ok = async (name: string, args: Record<string, unknown> = {}, client = mcp) => {
      const result = await client.callTool({ name, arguments: args })
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent)}`)
      return answerOf(result)
    }
    const failure = async (name: string, args: Record<string, unknown>, client = mcp) => {
      const result = await client.callTool({ name, arguments: args })
      expect(result.isError).toBe(true)
      return answerOf(result).error
    }

    test('initialize: server info, instructions and the protocol revision each SDK speaks', () => {
      expect(mcp.serverInfo()).toMatchObject({ name: 'herald' })
      expect(mcp.instructions()).toContain('launch_campaign')
      expect(mcp.protocolVersion()).toBe(sdk === 'v2' ? '2026-07-28' : '2025-11-25')
    })

    test('an admin key sees every generated tool; a contacts:read key sees reads only', async () => {
      const all = (await mcp.listTools()).tools
      expect(all.length).toBe(toolCount)
      const names = all.map((x) => x.name)
      expect(names).toContain('list_contacts')
      expect(names).toContain('launch_campaign')
      expect(names).toContain('get_campaign_stats')
      expect(names).toContain('import_contacts_csv')
      const visible = (await readOnly.listTools()).tools
      expect(visible.map((x) => x.name)).toContain('list_contacts')
      expect(visible.map((x) => x.name)).not.toContain('create_contact')
      expect(visible.filter((x) => x.annotations.readOnlyHint !== true).map((x) => x.name)).toEqual([])
    })

    // The server reuses SDK server instances from one request to the next (src/http/mcp/server.ts):
    // the credential must stay the request's own, whatever ran on the instance before or beside it.
    test('two tenants calling the same tools at once each see only their own data and tools', async () => {
      const mine = (await ok('create_contact', { email: `mine-${sdk}@example.com` })).data
      const theirs = (await ok('create_contact', { email: `theirs-${sdk}@example.com` }, stranger)).data
      expect([mine.client_id, theirs.client_id]).toEqual([acme, globex])
      const ids = (page: { data: { id: string; client_id: string }[] }, client: string) => {
        expect(page.data.map((c) => c.client_id).filter((c) => c !== client)).toEqual([])
        return page.data.map((c) => c.id)
      }
      const round = async () => {
        const [a, b, r, clientA, clientB, toolsA, toolsR] = await Promise.all([
          ok('list_contacts', { limit: 100 }),
          ok('list_contacts', { limit: 100 }, stranger),
          ok('list_contacts', { limit: 100 }, readOnly),
          ok('get_client', { id: acme }),
          ok('get_client', { id: globex }, stranger),
          mcp.listTools(),
          readOnly.listTools(),
        ])
        expect(ids(a, acme)).toContain(mine.id)
        expect(ids(a, acme)).not.toContain(theirs.id)
        expect(ids(b, globex)).toContain(theirs.id)
        expect(ids(b, globex)).not.toContain(mine.id)
        expect(ids(r, acme)).toContain(mine.id)
        expect([clientA.data.id, clientB.data.id]).toEqual([acme, globex])
        expect(toolsA.tools.length).toBe(toolCount)
        expect(
          toolsR.tools.filter((x: { annotations: { readOnlyHint: boolean } }) => !x.annotations.readOnlyHint),
        ).toEqual([])
      }
      await Promise.all(Array.from({ length: 10 }, round))
      // And another tenant's record stays out of reach by id, on a server that just served its owner.
      const [own, other] = await Promise.all([
        ok('get_contact', { id: theirs.id }, stranger),
        failure('get_contact', { id: theirs.id }),
      ])
      expect(own.data.id).toBe(theirs.id)
      expect(other.code).toBe('NOT_FOUND')
    })

    test('a tool’s input is one object: path ids, query and body members', async () => {
      const tools = (await mcp.listTools()).tools
      const launch = tools.find((x) => x.name === 'launch_campaign')
      expect(launch.inputSchema.required).toEqual(['id', 'confirm'])
      expect(launch.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
      expect(launch.description).toContain('confirm')
      const list = tools.find((x) => x.name === 'list_campaigns')
      expect(Object.keys(list.inputSchema.properties)).toEqual([
        'limit',
        'cursor',
        'client_id',
        'status',
        'search',
      ])
      expect(list.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
      const update = tools.find((x) => x.name === 'update_contact')
      expect(update.inputSchema.properties.id).toMatchObject({ type: 'string' })
      expect(update.inputSchema.properties.email).toBeDefined()
      expect(update.annotations.idempotentHint).toBe(true)
    })

    test('writes and reads are the REST ones: the record is there for REST, in the key’s workspace', async () => {
      const email = `ada-${sdk}@example.com`
      const created = (await ok('create_contact', { email, first_name: 'Ada' })).data
      expect(created.client_id).toBe(acme)
      const viaRest = await t.call('GET', `/api/v1/contacts/${created.id}`, { key: writer })
      expect(viaRest.body.data).toEqual(created)
      const page = await ok('list_contacts', { limit: 1 })
      expect(page.pagination).toMatchObject({ limit: 1 })
      expect(page.data[0].id).toBe(created.id)
      const patched = (await ok('update_contact', { id: created.id, last_name: 'Lovelace' })).data
      expect(patched).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace' })
      const found = await ok('search_contacts', { query: 'Lovelace' })
      expect(found.data.map((c: { id: string }) => c.id)).toContain(created.id)
    })

    test('errors come back as isError with the REST error body', async () => {
      const list = (await ok('create_list', { name: `Errors ${sdk}` })).data
      const c = (await ok('create_campaign', { name: 'E', list_id: list.id, subject: 'S', body_text: 'B' }))
        .data
      // Launch keeps its confirmation.
      const unconfirmed = await failure('launch_campaign', { id: c.id })
      expect(unconfirmed.code).toBe('VALIDATION_FAILED')
      expect(unconfirmed.details.map((d: { field: string }) => d.field)).toContain('confirm')
      expect((await ok('get_campaign', { id: c.id })).data.status).toBe('draft')
      // Another workspace's record does not exist for this key.
      expect((await failure('get_campaign', { id: c.id }, stranger)).code).toBe('NOT_FOUND')
      expect((await failure('delete_list', { id: list.id }, stranger)).code).toBe('NOT_FOUND')
      // A tool the scopes hide answers which scope it needs.
      const forbidden = await failure('create_contact', { email: 'x@example.com' }, readOnly)
      expect(forbidden).toMatchObject({ code: 'FORBIDDEN', details: { required_scope: 'contacts:write' } })
      // A member the tool does not take, and a bad value, are named.
      const unknown = await failure('create_list', { name: 'L', colour: 'red', description: 7 })
      expect(unknown.code).toBe('VALIDATION_FAILED')
      expect(unknown.details.map((d: { field: string }) => d.field).sort()).toEqual(['colour', 'description'])
      // State machine errors keep their details.
      const state = await failure('pause_campaign', { id: c.id })
      expect(state).toMatchObject({ code: 'INVALID_STATE', details: { status: 'draft' } })
      // A path id that is no id is 404, as in REST.
      expect((await failure('get_contact', { id: 'nope' })).code).toBe('NOT_FOUND')
    })

    test('an unknown tool is a protocol error', async () => {
      await expect(mcp.callTool({ name: 'drop_everything', arguments: {} })).rejects.toThrow(/Unknown tool/)
    })

    test('idempotency_key: a retried create returns the first result', async () => {
      const key = `create-list-${sdk}`
      const first = (await ok('create_list', { name: `Once ${sdk}`, idempotency_key: key })).data
      const again = (await ok('create_list', { name: `Once ${sdk}`, idempotency_key: key })).data
      expect(again.id).toBe(first.id)
      const reused = await failure('create_list', { name: 'Different', idempotency_key: key })
      expect(reused.code).toBe('IDEMPOTENCY_KEY_REUSED')
    })

    test('resources: templates and campaign stats, read through the same operations', async () => {
      const tpl = (
        await ok('create_template', {
          name: `T ${sdk}`,
          subject: 'Hi {{ contact.first_name }}',
          body_text: 'Hello',
        })
      ).data
      const templates = await mcp.listResourceTemplates()
      expect(templates.resourceTemplates.map((r: { uriTemplate: string }) => r.uriTemplate)).toEqual([
        'herald://campaigns/{id}/stats',
        'herald://templates/{id}',
      ])
      const listed = await mcp.listResources()
      expect(listed.resources.map((r: { uri: string }) => r.uri)).toContain(`herald://templates/${tpl.id}`)
      const read = await mcp.readResource({ uri: `herald://templates/${tpl.id}` })
      expect(read.contents[0].mimeType).toBe('application/json')
      expect(JSON.parse(read.contents[0].text)).toMatchObject({
        id: tpl.id,
        subject: 'Hi {{ contact.first_name }}',
      })
      const list = (await ok('create_list', { name: `R ${sdk}` })).data
      const c = (await ok('create_campaign', { name: 'R', list_id: list.id, template_id: tpl.id })).data
      const stats = await mcp.readResource({ uri: `herald://campaigns/${c.id}/stats` })
      expect(JSON.parse(stats.contents[0].text)).toMatchObject({
        campaign_id: c.id,
        status: 'draft',
        sent: 0,
      })
      // Another workspace's template is not found, like REST.
      await expect(stranger.readResource({ uri: `herald://templates/${tpl.id}` })).rejects.toThrow(
        /No such resource/,
      )
      await expect(mcp.readResource({ uri: 'herald://nothing/here' })).rejects.toThrow(/Unknown resource/)
    })

    test('prompts: draft_campaign and explain_deliverability', async () => {
      const listed = await mcp.listPrompts()
      expect(listed.prompts.map((p: { name: string }) => p.name)).toEqual([
        'draft_campaign',
        'explain_deliverability',
      ])
      const draft = await mcp.getPrompt({
        name: 'draft_campaign',
        arguments: { goal: 'announce the spring sale' },
      })
      const text = draft.messages[0].content.text
      expect(text).toContain('announce the spring sale')
      expect(text).toContain('create_campaign')
      expect(text).toContain('Do not call launch_campaign')
      const list = (await ok('create_list', { name: `P ${sdk}` })).data
      const c = (await ok('create_campaign', { name: 'P', list_id: list.id, subject: 'S', body_text: 'B' }))
        .data
      const explain = await mcp.getPrompt({
        name: 'explain_deliverability',
        arguments: { campaign_id: c.id },
      })
      const attached = explain.messages[1].content
      expect(attached.type).toBe('resource')
      expect(JSON.parse(attached.resource.text)).toMatchObject({ campaign_id: c.id })
      await expect(mcp.getPrompt({ name: 'explain_deliverability', arguments: {} })).rejects.toThrow(
        /campaign_id/,
      )
    })

    test('an unknown prompt is a protocol error: invalid params (-32602) naming the prompt', async () => {
      const error = await mcp.getPrompt({ name: 'write_my_novel', arguments: {} }).then(
        () => null,
        (e: { code?: number; message?: string }) => e,
      )
      expect(error?.code).toBe(-32602)
      expect(error?.message).toContain('Unknown prompt write_my_novel')
      // The client is still usable afterwards: the error ended that request only.
      expect((await mcp.listPrompts()).prompts.length).toBe(2)
    })

    test('full flow: list, contacts, template, campaign, launch with confirm, stats until sent', async () => {
      const list = (await ok('create_list', { name: `Flow ${sdk}` })).data
      for (const n of [1, 2, 3])
        await ok('create_contact', {
          email: `flow${n}-${sdk}@example.com`,
          first_name: `F${n}`,
          list_ids: [list.id],
        })
      const tpl = (
        await ok('create_template', {
          name: `Flow ${sdk}`,
          subject: 'Hello {{ contact.first_name }}',
          body_html: '<p>Hi {{ contact.first_name }}</p><a href="{{ unsubscribe_url }}">unsubscribe</a>',
        })
      ).data
      const preview = (
        await ok('preview_template', { id: tpl.id, sample: { contact: { first_name: 'Sam' } } })
      ).data
      expect(JSON.stringify(preview)).toContain('Sam')
      const c = (await ok('create_campaign', { name: `Flow ${sdk}`, list_id: list.id, template_id: tpl.id }))
        .data
      expect(c.status).toBe('draft')
      const launched = (await ok('launch_campaign', { id: c.id, confirm: true })).data
      expect(['sending', 'sent']).toContain(launched.status)
      await eventually(async () => {
        const stats = (await ok('get_campaign_stats', { id: c.id })).data
        expect(stats).toMatchObject({ status: 'sent', total_recipients: 3, sent: 3 })
      }, 15_000)
      const sent = await ok('list_messages', { campaign_id: c.id })
      expect(sent.pagination.total).toBe(3)
    })
  })
}

describe('the /mcp/v1 endpoint over HTTP', () => {
  const post = (headers: Record<string, string> = {}) =>
    fetch(http.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    })

  test('no credential → 401 with the MCP resource’s challenge and the REST error body', async () => {
    const r = await post()
    expect(r.status).toBe(401)
    expect(r.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="http://localhost:8080/.well-known/oauth-protected-resource/mcp/v1"`,
    )
    const body = await r.json()
    expect(body.error.code).toBe('UNAUTHORIZED')
    expect(body.error.request_id).toBe(r.headers.get('x-request-id')!)
  })

  test('a bad credential → 401 with error="invalid_token"', async () => {
    for (const authorization of ['Bearer hrld_nope', 'Basic dXNlcjpwYXNz']) {
      const r = await post({ authorization })
      expect(r.status).toBe(401)
      expect(r.headers.get('www-authenticate')).toBe(
        `Bearer error="invalid_token", resource_metadata="http://localhost:8080/.well-known/oauth-protected-resource/mcp/v1"`,
      )
    }
  })

  test('a body that is not JSON-RPC: 415 for another type, a JSON-RPC parse error, 405 for GET', async () => {
    const auth = { authorization: `Bearer ${writer}`, accept: 'application/json, text/event-stream' }
    const text = await fetch(http.url, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: 'hi',
    })
    expect(text.status).toBe(415)
    expect((await text.json()).error.code).toBe('UNSUPPORTED_MEDIA_TYPE')
    const broken = await fetch(http.url, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
      body: '{"jsonrpc": "2.0", "id": 1, "method": ',
    })
    expect(broken.status).toBe(400)
    expect((await broken.json()).error.code).toBe(-32700)
    const get = await fetch(http.url, { headers: auth })
    expect(get.status).toBe(405)
  })

  test('a _meta that is not an object is the SDK’s to judge, never an internal error', async () => {
    for (const [version, meta] of [
      ['2025-11-25', ''],
      ['2025-11-25', 5],
      ['2026-07-28', ''],
      ['2026-07-28', null],
    ] as const) {
      const r = await fetch(http.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${writer}`,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-protocol-version': version,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } }),
      })
      expect({ version, meta, status: r.status }).toEqual({
        version,
        meta,
        status: r.status < 500 ? r.status : 0,
      })
      expect(await r.text()).toContain('"jsonrpc":"2.0"')
    }
  })

  test('while the server drains: 503 UNAVAILABLE with the REST error body, for raw requests and SDK clients', async () => {
    const clients = [await connectMcp('v1', http.url, writer), await connectMcp('v2', http.url, writer)]
    t.ctx.lifecycle.draining = true
    try {
      const r = await post({ authorization: `Bearer ${writer}` })
      expect(r.status).toBe(503)
      expect(r.headers.get('access-control-allow-origin')).toBe('*')
      const body = await r.json()
      expect(body.error.code).toBe('UNAVAILABLE')
      expect(body.error.request_id).toBe(r.headers.get('x-request-id')!)
      // Draining is answered before the credential is looked at, as for REST.
      expect((await post()).status).toBe(503)
      // A connected client's call fails with that body (it does not hang or get an answer).
      for (const client of clients)
        await expect(client.callTool({ name: 'list_contacts', arguments: {} })).rejects.toThrow(
          /shutting down/,
        )
    } finally {
      t.ctx.lifecycle.draining = false
    }
    // Once the server serves again, the same clients work.
    for (const client of clients) {
      const result = await client.callTool({ name: 'list_contacts', arguments: {} })
      expect(result.isError).toBeFalsy()
      await client.close()
    }
  })

  test('a body over the MCP limit → 413, whether it declares its length or is chunked', async () => {
    const big = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"${'x'.repeat(MCP_BODY_LIMIT)}"}}`
    const headers = {
      authorization: `Bearer ${writer}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    }
    const declared = await fetch(http.url, { method: 'POST', headers, body: big })
    expect(declared.status).toBe(413)
    expect((await declared.json()).error.code).toBe('PAYLOAD_TOO_LARGE')
    const bytes = new TextEncoder().encode(big)
    const chunked = await fetch(http.url, {
      method: 'POST',
      headers,
      body: new ReadableStream({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 1 << 20)
            controller.enqueue(bytes.subarray(at, at + (1 << 20)))
          controller.close()
        },
      }),
    })
    expect(chunked.status).toBe(413)
    expect((await chunked.json()).error.code).toBe('PAYLOAD_TOO_LARGE')
    // A chunked body within the limit is read and served.
    const small = new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }))
    const ok = await fetch(http.url, {
      method: 'POST',
      headers: { ...headers, 'mcp-protocol-version': '2025-11-25' },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(small.subarray(0, 10))
          controller.enqueue(small.subarray(10))
          controller.close()
        },
      }),
    })
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ jsonrpc: '2.0', id: 2, result: {} })
  })

  test('the protected-resource metadata names the MCP endpoint', async () => {
    const r = await fetch(`${http.base}/.well-known/oauth-protected-resource/mcp/v1`)
    expect(r.status).toBe(200)
    const doc = await r.json()
    expect(doc.resource).toBe('http://localhost:8080/mcp/v1')
    expect(doc.authorization_servers).toEqual(['http://localhost:8080'])
    expect(doc.scopes_supported).toContain('campaigns:launch')
  })

  test('each MCP request spends one token of the key’s rate limit and says so', async () => {
    const limited = await t.key({ scopes: ['contacts:read'], clientId: acme, tier: 'standard' })
    const first = await post({ authorization: `Bearer ${limited}` })
    expect(first.status).toBe(200)
    expect(first.headers.get('ratelimit-limit')).toBe('100')
    const second = await post({ authorization: `Bearer ${limited}` })
    expect(Number(second.headers.get('ratelimit-remaining'))).toBeLessThan(
      Number(first.headers.get('ratelimit-remaining')),
    )
  })

  test('the server card at its three paths: generated from the registry, CORS *', async () => {
    const paths = [
      '/mcp/v1/server-card',
      '/mcp/.well-known/mcp/server-card.json',
      '/.well-known/mcp/server-card.json',
    ]
    const cards = []
    for (const path of paths) {
      const r = await fetch(http.base + path)
      expect(r.status).toBe(200)
      expect(r.headers.get('content-type')).toBe('application/mcp-server-card+json')
      expect(r.headers.get('access-control-allow-origin')).toBe('*')
      cards.push(await r.json())
    }
    expect(cards[1]).toEqual(cards[0])
    expect(cards[2]).toEqual(cards[0])
    const card = cards[0]
    expect(card.remotes).toEqual([
      expect.objectContaining({
        type: 'streamable-http',
        url: 'http://localhost:8080/mcp/v1',
        supportedProtocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
      }),
    ])
    expect(card.authentication.protectedResourceMetadata).toBe(
      'http://localhost:8080/.well-known/oauth-protected-resource/mcp/v1',
    )
    expect(card.tools.length).toBe(toolCount)
    expect(card.tools.find((x: { name: string }) => x.name === 'launch_campaign')).toMatchObject({
      destructive: true,
      requiredScope: 'campaigns:launch',
    })
    const preflight = await fetch(`${http.base}/mcp/v1`, { method: 'OPTIONS' })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization')
    // A 2026-07-28 browser client sends the standard Mcp-Method and Mcp-Name headers.
    expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-method, mcp-name')
  })
})

describe('import_contacts_csv', () => {
  let mcp: McpClient
  beforeAll(async () => {
    mcp = await connectMcp('v2', http.url, writer)
  })
  afterAll(() => mcp.close())

  test('CSV text goes through the import verb; the import is polled to completion', async () => {
    const list = answerOf(await mcp.callTool({ name: 'create_list', arguments: { name: 'Imported' } })).data
    const csv =
      'email,first_name,plan\nimp1@example.com,Ina,gold\nimp2@example.com,Ivo,silver\nnot-an-email,X,y\n'
    const started = await mcp.callTool({ name: 'import_contacts_csv', arguments: { csv, list_id: list.id } })
    expect(started.isError).toBeUndefined()
    const id = answerOf(started).data.id
    await imports.drain()
    const r = answerOf(await mcp.callTool({ name: 'get_contact_import', arguments: { id } })).data
    expect(r).toMatchObject({ status: 'completed', inserted: 2, skipped: 1 })
    const members = await t.call('GET', `/api/v1/lists/${list.id}/contacts`, { key: writer })
    expect(members.body.data.map((c: { email: string }) => c.email).sort()).toEqual([
      'imp1@example.com',
      'imp2@example.com',
    ])
  })

  test('more than 5 MB of CSV → PAYLOAD_TOO_LARGE; no CSV → VALIDATION_FAILED', async () => {
    const big = `email\n${'a@example.com\n'.repeat(400_000)}`
    const tooBig = await mcp.callTool({ name: 'import_contacts_csv', arguments: { csv: big } })
    expect(tooBig.isError).toBe(true)
    expect(answerOf(tooBig).error.code).toBe('PAYLOAD_TOO_LARGE')
    const none = await mcp.callTool({ name: 'import_contacts_csv', arguments: {} })
    expect(answerOf(none).error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'csv' }] })
  })
})

describe('bad arguments to every tool', () => {
  let mcp: McpClient
  beforeAll(async () => {
    mcp = await connectMcp('v2', http.url, writer)
  })
  afterAll(() => mcp.close())

  test('every member of the wrong type, or none at all: a 4xx error body, never an internal error', async () => {
    const tools = (await mcp.listTools()).tools
    const internal: string[] = []
    for (const tool of tools) {
      const members = Object.keys(tool.inputSchema.properties)
      for (const args of [
        {},
        Object.fromEntries(members.map((m) => [m, { nested: [1, null] }])),
        Object.fromEntries(members.map((m) => [m, -1])),
      ]) {
        const result = await mcp.callTool({ name: tool.name, arguments: args })
        if (!result.isError) continue
        const code = answerOf(result).error.code
        if (code === 'INTERNAL_ERROR') internal.push(`${tool.name} ${JSON.stringify(args)}`)
      }
    }
    expect(internal).toEqual([])
  }, 60_000)
})
