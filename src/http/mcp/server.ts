import { isPlainObject } from '../../lib/plain-object'
import type { Actor } from '../../services/actors/actor'
import { VERSION } from '../../version'
import type { Pipeline } from '../rest/pipeline'
import { answerTool, runTool } from './call'
import { directAnswerer, plainToolCall, type ServerInfo } from './direct-call'
import { MCP_BODY_LIMIT } from './limits'
import { getPrompt, prompts } from './prompts'
import { listResources, type ResourceCaller, readResource, resourceTemplates } from './resources'
import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  type McpRequestContext,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  WebStandardStreamableHTTPServerTransport,
} from './sdk'
import type { ToolCatalog } from './tools'
import { ENVELOPE_CLAIM, LEGACY_VERSIONS, PROTOCOL_VERSIONS } from './versions'

// The MCP server behind /mcp/v1: stateless, one low-level Server per HTTP request, from one
// factory for both protocol eras (the SDK's createMcpHandler serves 2026-07-28; 2025-era
// requests take the SDK's stateless transport, routed by its own isLegacyRequest). The
// low-level Server takes the generated JSON Schemas as they are; the catalog is built once.

/** What the endpoint hands the factory through the SDK's pass-through `authInfo.extra`. */
export interface CallerInfo {
  actor: Actor
  requestId: string
}

export { MCP_BODY_LIMIT }

const INSTRUCTIONS =
  'Herald sends email and SMS campaigns for one or more workspaces. Reads are safe. Writes change real data; ' +
  'launch_campaign and send_message send real messages — only call them after the user has explicitly approved that send. ' +
  'Errors come back as {"error": {code, message, details}} with the REST API’s codes (VALIDATION_FAILED lists every failing member).'

/**
 * A request the SDK classifies legacy for certain: no MCP-Protocol-Version header or a 2025
 * one, and one JSON-RPC message without the per-request envelope's claim. Anything else
 * (batches, a modern header, a claim) is left to the SDK's isLegacyRequest.
 */
function plainLegacy(request: Request, body: unknown): boolean {
  const header = request.headers.get('mcp-protocol-version')
  if (header !== null && !LEGACY_VERSIONS.has(header)) return false
  if (!isPlainObject(body)) return false
  const meta = isPlainObject(body.params) ? body.params._meta : undefined
  // Any _meta that is not an object carrying the claim (a string, null, an array) is the SDK's to judge.
  return meta === undefined || (typeof meta === 'object' && meta !== null && !(ENVELOPE_CLAIM in meta))
}

/**
 * A 2025-era message whose serving leaves nothing on the instance: one request, not the
 * `initialize` handshake (which records the client's version and capabilities on it).
 */
const poolable = (body: unknown) => isPlainObject(body) && 'id' in body && body.method !== 'initialize'

/**
 * The plain 2026-07-28 request: a modern MCP-Protocol-Version header and one JSON-RPC request
 * (not `initialize`) carrying the envelope's claim — what the SDK's own classification calls
 * modern. It goes straight to the SDK's entry, which classifies it again anyway (asking
 * isLegacyRequest first would classify it twice).
 */
function plainModern(request: Request, body: unknown): boolean {
  const header = request.headers.get('mcp-protocol-version')
  if (header === null || LEGACY_VERSIONS.has(header)) return false
  if (!isPlainObject(body) || !('id' in body)) return false
  const meta = isPlainObject(body.params) ? body.params._meta : undefined
  return (
    typeof body.method === 'string' &&
    body.method !== 'initialize' &&
    typeof meta === 'object' &&
    meta !== null &&
    ENVELOPE_CLAIM in meta
  )
}

const decoder = new TextDecoder()

const LIST_CACHE = { ttlMs: 300_000, cacheScope: 'private' } as const

type Era = McpRequestContext['era']

/** The caller of one request, as the endpoint passed it through the SDK (`ctx.http.authInfo.extra`). */
function callerOf(ctx: ServerContext): CallerInfo {
  const caller = ctx.http?.authInfo?.extra as unknown as CallerInfo | undefined
  // The endpoint always passes one; a request without it is a wiring bug, never an anonymous call.
  if (!caller) throw new ProtocolError(ProtocolErrorCode.InternalError, 'No caller for this request')
  return caller
}

/** Idle servers kept per era; more may be serving at once (each request holds its own). */
const POOL_SIZE = 16

const SERVER_INFO: ServerInfo = { name: 'herald', title: 'Herald', version: VERSION }

export interface McpServerOptions {
  /**
   * Answer the plain tools/call without the SDK's per-request server (./direct-call.ts). On
   * everywhere; off only for the test that compares the two answers.
   */
  direct?: boolean
}

export function createMcpServer(p: Pipeline, catalog: ToolCatalog, options: McpServerOptions = {}) {
  const direct = options.direct ?? true
  const directAnswer = directAnswerer(SERVER_INFO)
  const resourceCaller = (ctx: ServerContext): ResourceCaller => {
    const { actor, requestId } = callerOf(ctx)
    return { p, catalog, actor, requestId }
  }

  /**
   * One low-level Server with every handler registered. The handlers hold nothing of a
   * request: the actor (and so the tenant and the scopes tools/list filters by) comes from
   * the request's own context each time, which is what lets one instance serve one request
   * after another (./server.test.ts checks two tenants calling at once).
   */
  function build(): Server {
    const server = new Server(
      { ...SERVER_INFO },
      {
        capabilities: { tools: {}, resources: {}, prompts: {} },
        supportedProtocolVersions: PROTOCOL_VERSIONS,
        instructions: INSTRUCTIONS,
        // The lists change only with a new release and depend on the key's scopes: a 2026-07-28
        // client may keep them for a while, for itself only (resources/list is live data: not cached).
        cacheHints: {
          'tools/list': LIST_CACHE,
          'prompts/list': LIST_CACHE,
          'resources/templates/list': LIST_CACHE,
          'server/discover': LIST_CACHE,
        },
      },
    )
    server.setRequestHandler('tools/list', (_request, ctx) => ({
      tools: catalog.visibleTo(callerOf(ctx).actor) as never,
    }))
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const { name, arguments: args } = request.params
      const tool = catalog.byName.get(name)
      // A tool the scopes hide still runs, so the caller learns which scope it lacks (403).
      if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`)
      const { actor, requestId } = callerOf(ctx)
      const outcome = await runTool(p, tool, args, actor, requestId)
      return server.projectCallToolResult(
        {
          content: [{ type: 'text', text: outcome.text }],
          structuredContent: outcome.body,
          ...(outcome.ok ? {} : { isError: true }),
        },
        undefined,
      )
    })
    server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates }))
    server.setRequestHandler('resources/list', async (_request, ctx) => ({
      resources: (await listResources(resourceCaller(ctx))) as never,
    }))
    server.setRequestHandler(
      'resources/read',
      async (request, ctx) => (await readResource(resourceCaller(ctx), request.params.uri)) as never,
    )
    server.setRequestHandler('prompts/list', () => ({ prompts: prompts as never }))
    server.setRequestHandler(
      'prompts/get',
      async (request, ctx) =>
        (await getPrompt(resourceCaller(ctx), request.params.name, request.params.arguments)) as never,
    )
    return server
  }

  // Servers are reused from one request to the next instead of building one and registering its
  // handlers for each, one pool per era since the era is instance state. A server is handed to
  // one request at a time — taken from the pool, returned once its transport closed (the SDK
  // clears it first; a second close returns nothing) — so the SDK still sees a server that
  // serves nothing else. A
  // 2025-era `initialize` binds its instance to what that client negotiated: such an instance
  // is never returned to the pool (see `poolable`).
  const idle: Record<Era, Server[]> = { legacy: [], modern: [] }
  function take(era: Era, reuse: boolean): Server {
    let server = reuse ? idle[era].pop() : undefined
    while (server !== undefined && server.transport !== undefined) server = idle[era].pop()
    server ??= build()
    server.onclose = reuse
      ? () => {
          const pool = idle[era]
          if (server.transport === undefined && pool.length < POOL_SIZE && !pool.includes(server))
            pool.push(server)
        }
      : undefined
    return server
  }

  const factory = (mcp: McpRequestContext) => take(mcp.era, mcp.era === 'modern')
  // 2026-07-28 requests: the SDK's entry, strict (2025-era traffic never reaches it).
  const modern = createMcpHandler(factory, {
    legacy: 'reject',
    maxRequestBodySize: MCP_BODY_LIMIT,
    onerror: (error) => p.app.log.warn('mcp request refused', { error: error.message }),
  })

  // 2025-era requests: the SDK's stateless idiom (a fresh server and transport per request, no
  // session), answering JSON rather than an SSE stream: nothing is streamed here, and a plain
  // body costs a quarter of the stream's framing per call (measured in test/bench/mcp.ts).
  async function legacy(request: Request, parsedBody: unknown, authInfo: AuthInfo): Promise<Response> {
    if (request.method !== 'POST')
      return Response.json(
        { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null },
        { status: 405, headers: { allow: 'POST' } },
      )
    const server = take('legacy', poolable(parsedBody))
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    await server.connect(transport)
    try {
      return await transport.handleRequest(request, {
        authInfo,
        ...(parsedBody === undefined ? {} : { parsedBody }),
      })
    } finally {
      // Closing the transport closes the server's side too (and returns it to the pool). The
      // answer is whole by now (JSON, never a stream), so the close (the SDK builds an error with a
      // stack trace on every close) runs after the answer is handed to the socket, not before.
      setImmediate(() => void transport.close().catch(() => {}))
    }
  }

  /**
   * One HTTP request to /mcp/v1 for a caller already admitted. The body (read once by the
   * door, within MCP_BODY_LIMIT) is parsed here and handed to the SDK, which then neither
   * clones nor re-reads it; a body that does not parse goes to the SDK as it came, for its
   * JSON-RPC parse error.
   */
  return async function serve(
    request: Request,
    raw: Uint8Array | null,
    authInfo: AuthInfo,
  ): Promise<Response> {
    let parsedBody: unknown
    let forward = request
    if (raw !== null) {
      try {
        parsedBody = JSON.parse(decoder.decode(raw))
      } catch {
        forward = new Request(request.url, {
          method: 'POST',
          headers: request.headers,
          body: raw as BodyInit,
        })
      }
    }
    if (direct && parsedBody !== undefined) {
      const call = plainToolCall(request, parsedBody, catalog)
      if (call) {
        const { actor, requestId } = authInfo.extra as unknown as CallerInfo
        return directAnswer(call, await answerTool(p, call.tool, call.args, actor, requestId))
      }
    }
    // The SDK's own classification: no per-request envelope (initialize, 2025-era calls, GET
    // and DELETE, a body that does not parse) is legacy. The plain 2025-era call is recognised
    // here without it (the SDK's schema checks cost as much as the call itself), and so is the plain 2026-07-28 one.
    const isModern =
      parsedBody !== undefined &&
      (plainModern(request, parsedBody) ||
        (!plainLegacy(request, parsedBody) && !(await isLegacyRequest(request, parsedBody))))
    return isModern ? modern.fetch(request, { authInfo, parsedBody }) : legacy(forward, parsedBody, authInfo)
  }
}
