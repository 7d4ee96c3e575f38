import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import {
  createMcpHandler,
  isInitializedNotification,
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  Server,
  specTypeSchemas,
} from '../../../src/http/mcp/sdk'

// patches/@modelcontextprotocol%2Fserver@2.4.0.patch makes the SDK's JSON-RPC type guards cheaper
// (issue 13: a tool call asked them a dozen times, each a full schema parse): a structural
// pre-check before the schema, and an exact fast path for the result response the protocol layer
// builds. A guard must give the very answer the (unpatched) schema gives for every value: the
// schemas, which the patch leaves alone, are the reference.
const guards = [
  ['isJSONRPCRequest', isJSONRPCRequest, specTypeSchemas.JSONRPCRequest],
  ['isJSONRPCNotification', isJSONRPCNotification, specTypeSchemas.JSONRPCNotification],
  ['isJSONRPCResultResponse', isJSONRPCResultResponse, specTypeSchemas.JSONRPCResultResponse],
  ['isJSONRPCErrorResponse', isJSONRPCErrorResponse, specTypeSchemas.JSONRPCErrorResponse],
  ['isInitializeRequest', isInitializeRequest, specTypeSchemas.InitializeRequest],
  ['isInitializedNotification', isInitializedNotification, specTypeSchemas.InitializedNotification],
] as const

// The schema's own answer, through the Standard Schema interface the SDK types them with.
const accepts = (schema: (typeof guards)[number][2], value: unknown) => {
  const outcome = schema['~standard'].validate(value)
  if (outcome instanceof Promise) throw new Error('a JSON-RPC schema validates synchronously')
  return outcome.issues === undefined
}

// Messages near the boundary of each kind: the members of a request, a notification, a result and
// an error, each mostly right (so every kind is met often) and sometimes a value that almost is;
// sometimes a member dropped or one added.
const plainObject = fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 })
const mostly = <T>(right: fc.Arbitrary<T>, ...wrong: fc.Arbitrary<unknown>[]) =>
  fc.oneof({ arbitrary: right, weight: 4 }, ...wrong.map((arbitrary) => ({ arbitrary, weight: 1 })))
const members = {
  jsonrpc: mostly(fc.constant('2.0'), fc.constantFrom('1.0', '2', 2, null)),
  id: mostly(
    fc.oneof(fc.integer(), fc.string({ maxLength: 3 })),
    fc.constantFrom(-0, 1.5, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, Number.NaN, null, true),
    fc.double(),
  ),
  method: mostly(
    fc.constantFrom('initialize', 'notifications/initialized', 'tools/call', 'ping'),
    fc.string({ maxLength: 4 }),
    fc.constant(7),
  ),
  params: mostly(
    fc.constantFrom(
      {},
      { _meta: {} },
      {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      },
    ),
    fc.constantFrom({ _meta: null }, { _meta: 3 }, { protocolVersion: '2025-06-18' }, null, [], 'p'),
    plainObject,
  ),
  result: mostly(
    fc.constantFrom(
      {},
      { _meta: {} },
      { _meta: { progressToken: 1 } },
      { content: [{ type: 'text', text: 't' }] },
    ),
    fc.constantFrom({ _meta: null }, { _meta: [] }, { _meta: 'm' }, [], null, 'r', 0),
    plainObject,
    fc.anything({ maxDepth: 2 }),
  ),
  error: mostly(
    fc.constantFrom({ code: -32600, message: 'bad' }, { code: -32600, message: 'bad', data: { x: 1 } }),
    fc.constantFrom(
      { code: 1.5, message: 'bad' },
      { code: '1', message: 'bad' },
      { code: 1 },
      { message: 'bad' },
      null,
      {},
    ),
    fc.anything({ maxDepth: 2 }),
  ),
}
type Member = keyof typeof members
const shape = (required: Member[], optional: Member[]) =>
  fc
    .tuple(
      fc.record(
        Object.fromEntries([...required, ...optional].map((k) => [k, members[k]])) as Record<
          Member,
          fc.Arbitrary<unknown>
        >,
        { requiredKeys: required },
      ),
      fc.option(fc.constantFrom(...required), { freq: 6 }),
      fc.option(
        fc.tuple(
          fc.constantFrom<string>('extra', 'id', 'method', 'result', 'error'),
          fc.jsonValue({ maxDepth: 1 }),
        ),
        {
          freq: 4,
        },
      ),
    )
    .map(([message, drop, add]) => {
      const value: Record<string, unknown> = { ...message }
      if (drop !== null) delete value[drop]
      if (add !== null && !(add[0] in value)) value[add[0]] = add[1]
      return value
    })
const near = fc.oneof(
  shape(['jsonrpc', 'id', 'method'], ['params']),
  shape(['jsonrpc', 'method'], ['params']),
  shape(['jsonrpc', 'id', 'result'], []),
  shape(['jsonrpc', 'id', 'error'], []),
)

describe('patched JSON-RPC type guards', () => {
  for (const [name, guard, schema] of guards) {
    test(`${name} answers as its schema does`, () => {
      fc.assert(
        fc.property(fc.oneof({ arbitrary: near, weight: 4 }, fc.anything(), fc.jsonValue()), (value) => {
          expect(guard(value)).toBe(accepts(schema, value))
        }),
        { numRuns: 4000 },
      )
    })
  }

  test('known answers, each of the fast paths and each of their refusals', () => {
    const result = { jsonrpc: '2.0', id: 1, result: { content: [] } }
    expect(isJSONRPCResultResponse(result)).toBe(true)
    expect(isJSONRPCResultResponse({ ...result, id: 'a' })).toBe(true)
    expect(isJSONRPCResultResponse({ ...result, result: { _meta: {} } })).toBe(true)
    // Not the plain shape: the schema decides (and refuses each of these).
    expect(isJSONRPCResultResponse({ ...result, id: 1.5 })).toBe(false)
    expect(isJSONRPCResultResponse({ ...result, id: null })).toBe(false)
    expect(isJSONRPCResultResponse({ ...result, jsonrpc: '1.0' })).toBe(false)
    expect(isJSONRPCResultResponse({ ...result, result: [] })).toBe(false)
    expect(isJSONRPCResultResponse({ ...result, result: { _meta: 'm' } })).toBe(false)
    expect(isJSONRPCResultResponse({ ...result, extra: 1 })).toBe(false)
    expect(isJSONRPCRequest({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBe(true)
    expect(isJSONRPCRequest({ jsonrpc: '2.0', method: 'tools/list' })).toBe(false)
    expect(isJSONRPCNotification({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(true)
    expect(isJSONRPCNotification({ jsonrpc: '2.0', id: 1, method: 'notifications/initialized' })).toBe(false)
    expect(isJSONRPCErrorResponse({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'x' } })).toBe(
      true,
    )
    expect(isInitializedNotification({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(true)
    expect(isInitializeRequest({ jsonrpc: '2.0', id: 1, method: 'ping' })).toBe(false)
    for (const value of [null, undefined, 0, 'x', [], true])
      for (const [, guard] of guards) expect(guard(value)).toBe(false)
  })
})

// The patch's server-side changes, pinned where they could change what a server does.
describe('patched Server and Protocol', () => {
  const ENVELOPE = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  }
  const post = (
    handler: ReturnType<typeof createMcpHandler>,
    method: string,
    params: object,
    name?: string,
  ) =>
    handler.fetch(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          ...(name ? { 'mcp-name': name } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: ENVELOPE } }),
      }),
    )
  const newServer = () =>
    new Server(
      { name: 's', version: '1' },
      { capabilities: { tools: {} }, supportedProtocolVersions: ['2026-07-28', '2025-11-25'] },
    )

  test('server/discover is installed once per instance, and again whenever it is missing', async () => {
    const server = newServer()
    const handler = createMcpHandler(() => server, { legacy: 'reject' })
    for (let i = 0; i < 2; i++) {
      const res = await post(handler, 'server/discover', {})
      expect(res.status).toBe(200)
      expect(JSON.stringify((await res.json()).result)).toContain('"name":"s"')
    }
    // Removed before an instance first serves (nothing installed yet to compare with): installed.
    const bare = newServer()
    bare.removeRequestHandler('server/discover')
    const res = await post(
      createMcpHandler(() => bare, { legacy: 'reject' }),
      'server/discover',
      {},
    )
    expect(res.status).toBe(200)
  })

  test("an answered request's signal is released, not aborted, when the per-request server closes", async () => {
    const server = newServer()
    const events: string[] = []
    server.setRequestHandler('tools/call', async (_request, ctx) => {
      ctx.mcpReq.signal.addEventListener('abort', () => events.push('aborted'))
      return { content: [{ type: 'text', text: 'hi' }] }
    })
    const closed = new Promise<void>((resolve) => {
      server.onclose = resolve
    })
    const res = await post(
      createMcpHandler(() => server, { legacy: 'reject' }),
      'tools/call',
      { name: 't', arguments: {} },
      't',
    )
    expect(res.status).toBe(200)
    await res.text()
    await closed
    // Unpatched, the close aborted the signal of a request already answered ("Connection closed").
    expect(events).toEqual([])
  })
})
