import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { plainToolCall } from '../../../src/http/mcp/direct-call'
import { createMcpServer } from '../../../src/http/mcp/server'
import { buildCatalog } from '../../../src/http/mcp/tools'
import { createPipeline } from '../../../src/http/rest/pipeline'
import { operations } from '../../../src/http/rest/registry'
import { keyActor } from '../../../src/services/actors/actor'
import { createTestApp } from '../../helpers/app'

// A plain tools/call is answered without the SDK's per-request server (src/http/mcp/direct-call.ts).
// Its answer must be the SDK's own: every request here goes through both (the same pipeline and
// database, the lane switched off for one) and the two answers are compared byte for byte. The
// requests are the calls both SDK clients send, and the same with one thing changed, which the
// lane must either answer as the SDK does or leave to it.

const t = await createTestApp()
const acme = await t.client('Acme')
const p = createPipeline(t.ctx)
const catalog = buildCatalog(operations)
const viaLane = createMcpServer(p, catalog)
const viaSdk = createMcpServer(p, catalog, { direct: false })
const actor = keyActor({
  id: 'key_direct',
  clientId: acme,
  scopes: ['contacts:read', 'contacts:write', 'clients:read', 'campaigns:read'],
  tier: 'unlimited',
})

const contact = await t.call('POST', '/api/v1/contacts', {
  key: await t.key({ scopes: ['admin:*'], clientId: acme }),
  body: {
    email: 'ada@acme.example',
    first_name: 'Ada',
    custom_fields: { plan: 'pro', note: 'line\nbreak "quoted" \u2028 é' },
  },
})
if (contact.status !== 200 && contact.status !== 201) throw new Error(JSON.stringify(contact.body))
const contactId = contact.body.data.id as string

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'herald-test-v2', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
}

interface Call {
  headers: Record<string, string | undefined>
  body: unknown
  /** The body as sent, when it is JSON that JSON.stringify cannot write (an own `__proto__`). */
  raw?: string
}

/** The call as each SDK client sends it: v1 (2025-11-25) or v2 (2026-07-28 with its envelope). */
function sdkCall(era: 'legacy' | 'modern', name: string, args: unknown, id: unknown = 1): Call {
  const headers: Record<string, string | undefined> = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': era === 'modern' ? '2026-07-28' : '2025-11-25',
  }
  const params: Record<string, unknown> = { name, arguments: args }
  if (era === 'modern') {
    headers['mcp-method'] = 'tools/call'
    headers['mcp-name'] = name
    params._meta = structuredClone(ENVELOPE)
  }
  return { headers, body: { method: 'tools/call', params, jsonrpc: '2.0', id } }
}

let requestCount = 0
async function answer(serve: typeof viaLane, call: Call, requestId: string) {
  const text = call.raw ?? JSON.stringify(call.body)
  const headers = Object.fromEntries(
    Object.entries(call.headers).filter(([, v]) => v !== undefined),
  ) as Record<string, string>
  const request = new Request('http://localhost/mcp/v1', { method: 'POST', headers, body: text })
  const res = await serve(request, new TextEncoder().encode(text), {
    token: 'unused',
    clientId: acme,
    scopes: [...actor.scopes],
    extra: { actor, requestId } as unknown as Record<string, unknown>,
  })
  return { status: res.status, headers: res.headers.toJSON(), body: await res.text() }
}

/** Both answers, and whether the lane took the call. */
async function both(call: Call) {
  const requestId = `01a20c00-0000-7000-8000-${String(++requestCount).padStart(12, '0')}`
  const headers = new Headers(
    Object.entries(call.headers).filter((e): e is [string, string] => e[1] !== undefined),
  )
  const taken = plainToolCall(
    new Request('http://localhost/mcp/v1', { method: 'POST', headers }),
    call.raw === undefined ? call.body : JSON.parse(call.raw),
    catalog,
  )
  const sdk = await answer(viaSdk, call, requestId)
  const lane = await answer(viaLane, call, requestId)
  return { taken: taken !== null, sdk, lane }
}

const READS: [string, unknown][] = [
  ['get_client', { id: acme }],
  ['get_contact', { id: contactId }],
  ['list_contacts', { limit: 1 }],
  ['list_contacts', {}],
  ['list_contacts', undefined],
  ['get_contact', { id: '01a20c00-0000-7000-8000-000000000000' }], // 404 → isError
  ['get_contact', {}], // 422: the path id missing
  ['create_contact', { email: 'not an email' }], // 422 from the verb
  ['list_contacts', { limit: 1, colour: 'red' }], // 422: not a member
  ['list_campaigns', { status: 'nope' }],
  ['create_list', { name: 'x' }], // 403: the scope is missing
]

describe('the direct tools/call lane answers as the SDK does', () => {
  for (const era of ['legacy', 'modern'] as const)
    for (const [name, args] of READS)
      test(`${era} ${name} ${JSON.stringify(args)}`, async () => {
        const { taken, sdk, lane } = await both(sdkCall(era, name, args))
        expect(taken).toBe(true)
        expect(lane).toEqual(sdk)
        expect(sdk.status).toBe(200)
      })

  // Arguments the REST request cannot carry as they are: each refused as a tool error naming the
  // member (an HTTP 500 of the whole request before), the same on both paths.
  const REFUSED: [string, Record<string, unknown>, string, string][] = [
    [
      'create_contact',
      { email: 'a@b.example', idempotency_key: 'a\nb' },
      'idempotency_key',
      'control characters',
    ],
    ['create_contact', { email: 'a@b.example', idempotency_key: 'key-€' }, 'idempotency_key', 'HTTP header'],
    ['create_contact', { email: 'a@b.example', idempotency_key: '' }, 'idempotency_key', '1 to 255'],
    [
      'create_contact',
      { email: 'a@b.example', idempotency_key: 'k'.repeat(256) },
      'idempotency_key',
      '1 to 255',
    ],
    ['get_contact', { id: '\ud800' }, 'id', 'not a record id'],
  ]
  for (const era of ['legacy', 'modern'] as const)
    for (const [name, args, field, message] of REFUSED)
      test(`${era} ${name} ${JSON.stringify(args).slice(0, 60)}: 422 naming ${field}`, async () => {
        const { taken, sdk, lane } = await both(sdkCall(era, name, args))
        expect(taken).toBe(true)
        expect(lane).toEqual(sdk)
        expect(lane.status).toBe(200)
        const result = JSON.parse(lane.body).result
        expect(result.isError).toBe(true)
        expect(result.structuredContent.error.code).toBe('VALIDATION_FAILED')
        expect(result.structuredContent.error.details).toEqual([
          { field, message: expect.stringContaining(message) },
        ])
      })

  // An own `__proto__` member (JSON can say it; JSON.stringify of an object cannot): the SDK's
  // copy of the arguments makes it the prototype, so the lane leaves such a call to the SDK.
  for (const era of ['legacy', 'modern'] as const)
    for (const args of [`{"id":"${acme}","__proto__":{"x":1}}`, `{"__proto__":{"id":"${acme}"}}`])
      test(`${era} get_client ${args.slice(0, 40)}: left to the SDK`, async () => {
        const call = sdkCall(era, 'get_client', 'ARGS')
        call.raw = JSON.stringify(call.body).replace('"ARGS"', args)
        const { taken, sdk, lane } = await both(call)
        expect(taken).toBe(false)
        expect(lane).toEqual(sdk)
      })

  // One thing changed from what the SDK clients send: a header, a member, a value.
  // Every single change from what the SDK clients send, for both eras: a header, a member of
  // the message, of params or of the envelope (undefined: left out).
  const ODD: unknown[] = [null, 1, 1.5, -1, 'x', '', [], {}, true, Number.MAX_SAFE_INTEGER + 2]
  const HEADERS: Record<string, (string | undefined)[]> = {
    accept: [
      undefined,
      'application/json',
      'text/event-stream, application/json',
      '*/*',
      'text/event-stream',
    ],
    'content-type': [undefined, 'application/json; charset=utf-8', 'application/vnd.x+json', 'text/plain'],
    'mcp-protocol-version': [
      undefined,
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
      '2026-07-28',
      ' 2026-07-28',
      '2024-11-05',
      '2099-01-01',
    ],
    'mcp-method': [undefined, 'tools/call', 'tools/list', 'TOOLS/CALL'],
    'mcp-name': [undefined, 'get_client', 'get_contact', ' get_client', 'x'],
    'mcp-session-id': ['abc'],
  }
  const CLIENT_INFO = [
    { name: 'c', version: '1' },
    { name: 'c', version: '1', title: 'C' },
    { name: 'c' },
    { name: 1, version: '1' },
    { name: 'c', version: '1', icons: [{ src: 'https://x.example/i.png' }] },
    { name: 'c', version: '1', extra: true },
  ]
  const CAPABILITIES = [
    { elicitation: {} },
    { sampling: {}, roots: { listChanged: true } },
    { sampling: 5 },
    { elicitation: 'x' },
    { experimental: { x: {} } },
  ]
  type Change = { what: string; apply(call: Call): void }
  const part = (call: Call) => {
    const body = call.body as Record<string, unknown>
    const params = body.params as Record<string, unknown>
    return { body, params }
  }
  /** The envelope (for a 2025-era call, a _meta made for the change). */
  const metaOf = (call: Call) => {
    const { params } = part(call)
    params._meta ??= {}
    return params._meta as Record<string, unknown>
  }
  const set = (o: Record<string, unknown>, key: string, v: unknown) => {
    if (v === undefined) delete o[key]
    else o[key] = v
  }
  const CHANGES: Change[] = [
    ...Object.entries(HEADERS).flatMap(([name, values]) =>
      values.map((v) => ({
        what: `header ${name}: ${v}`,
        apply: (c: Call) => {
          c.headers[name] = v
        },
      })),
    ),
    ...[...ODD, undefined, 7, 'req-1'].map((v) => ({
      what: `id ${JSON.stringify(v)}`,
      apply: (c: Call) => set(part(c).body, 'id', v),
    })),
    ...['1.0', 2, undefined].map((v) => ({
      what: `jsonrpc ${v}`,
      apply: (c: Call) => set(part(c).body, 'jsonrpc', v),
    })),
    ...['extra', 'result', 'error'].map((key) => ({
      what: `member ${key}`,
      apply: (c: Call) => set(part(c).body, key, {}),
    })),
    ...['task', 'extra', 'name', 'arguments', '_meta'].flatMap((key) =>
      [...ODD, undefined].map((v) => ({
        what: `params.${key} ${JSON.stringify(v)}`,
        apply: (c: Call) => set(part(c).params, key, v),
      })),
    ),
    ...[{ id: 'x' }, { id: acme, extra: 1 }, { id: '' }, {}, { id: acme.toUpperCase() }, { limit: 1 }].map(
      (v) => ({
        what: `arguments ${JSON.stringify(v)}`,
        apply: (c: Call) => set(part(c).params, 'arguments', v),
      }),
    ),
    ...['get_contact', 'no_such_tool', 'list_lists', ''].map((name) => ({
      what: `tool ${name}`,
      apply: (c: Call) => set(part(c).params, 'name', name),
    })),
    ...[...Object.keys(ENVELOPE), 'progressToken', 'io.modelcontextprotocol/logLevel'].flatMap((key) =>
      [...ODD, undefined, '2025-11-25', '2026-07-28', ...CLIENT_INFO, ...CAPABILITIES].map((v) => ({
        what: `_meta ${key}: ${JSON.stringify(v)}`,
        apply: (c: Call) => set(metaOf(c), key, v),
      })),
    ),
  ]

  for (const era of ['legacy', 'modern'] as const)
    test(`${era}: each of ${CHANGES.length} single changes gets the same answer, whoever gives it`, async () => {
      let taken = 0
      for (const change of CHANGES) {
        const call = sdkCall(era, 'get_client', { id: acme })
        change.apply(call)
        const result = await both(call)
        if (result.taken) taken++
        expect({ change: change.what, ...result.lane }).toEqual({ change: change.what, ...result.sdk })
      }
      // Not vacuous: some changed calls are still plain (another id, other arguments, another
      // tool, a header the SDK does not read) and the lane answers them.
      expect(taken).toBeGreaterThan(10)
    })

  test('any value in any member: the same answer', async () => {
    const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(...ODD))
    const where = fc.constantFrom('body', 'params', 'meta', 'arguments')
    const key = fc.constantFrom(
      'id',
      'jsonrpc',
      'method',
      'name',
      'arguments',
      '_meta',
      ...Object.keys(ENVELOPE),
      'x',
    )
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('legacy' as const, 'modern' as const),
        where,
        key,
        value,
        async (era, w, k, v) => {
          const call = sdkCall(era, 'get_client', { id: acme })
          const { body, params } = part(call)
          const target =
            w === 'meta'
              ? metaOf(call)
              : { body, params, arguments: params.arguments as Record<string, unknown> }[w]
          set(target, k, v)
          const result = await both(call)
          expect(result.lane).toEqual(result.sdk)
        },
      ),
      { numRuns: 300 },
    )
  })
})
