import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  type McpRequestContext,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server'
import type { Actor } from '../../services/actors/actor'
import { VERSION } from '../../version'
import type { Pipeline } from '../pipeline'
import { runTool } from './call'
import { getPrompt, prompts } from './prompts'
import { listResources, type ResourceCaller, readResource, resourceTemplates } from './resources'
import type { ToolCatalog } from './tools'
import { PROTOCOL_VERSIONS } from './versions'

// The MCP server behind /mcp/v1: stateless, one low-level Server per HTTP request, from one
// factory for both protocol eras (the SDK's createMcpHandler serves 2026-07-28; 2025-era
// requests take the SDK's stateless transport, routed by its own isLegacyRequest). The
// low-level Server takes the generated JSON Schemas as they are; the catalog is built once.

/** What the endpoint hands the factory through the SDK's pass-through `authInfo.extra`. */
export interface CallerInfo {
  actor: Actor
  requestId: string
}

/** Up to 5 MB of CSV for import_contacts_csv, JSON-escaped (quotes and newlines double in the worst case). */
export const MCP_BODY_LIMIT = 12 * 1024 * 1024

const INSTRUCTIONS =
  'Herald sends email and SMS campaigns for one or more workspaces. Reads are safe. Writes change real data; ' +
  'launch_campaign and send_message send real messages — only call them after the user has explicitly approved that send. ' +
  'Errors come back as {"error": {code, message, details}} with the REST API’s codes (VALIDATION_FAILED lists every failing member).'

const LEGACY_VERSIONS = new Set(PROTOCOL_VERSIONS.filter((v) => v < '2026'))
const ENVELOPE_CLAIM = 'io.modelcontextprotocol/protocolVersion'

/**
 * A request the SDK classifies legacy for certain: no MCP-Protocol-Version header or a 2025
 * one, and one JSON-RPC message without the per-request envelope's claim. Anything else
 * (batches, a modern header, a claim) is left to the SDK's isLegacyRequest.
 */
function plainLegacy(request: Request, body: unknown): boolean {
  const header = request.headers.get('mcp-protocol-version')
  if (header !== null && !LEGACY_VERSIONS.has(header)) return false
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false
  const meta = (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta
  return meta === undefined || !(ENVELOPE_CLAIM in meta)
}

const LIST_CACHE = { ttlMs: 300_000, cacheScope: 'private' } as const

export function createMcpServer(p: Pipeline, catalog: ToolCatalog) {
  const factory = (mcp: McpRequestContext) => {
    const caller = mcp.authInfo?.extra as unknown as CallerInfo
    const c: ResourceCaller = { p, catalog, actor: caller.actor, requestId: caller.requestId }
    const server = new Server(
      { name: 'herald', title: 'Herald', version: VERSION },
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
    server.setRequestHandler('tools/list', () => ({ tools: catalog.visibleTo(c.actor) as never }))
    server.setRequestHandler('tools/call', async (request) => {
      const { name, arguments: args } = request.params
      const tool = catalog.byName.get(name)
      // A tool the scopes hide still runs, so the caller learns which scope it lacks (403).
      if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`)
      const outcome = await runTool(p, tool, args, c.actor, c.requestId)
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
    server.setRequestHandler('resources/list', async () => ({ resources: (await listResources(c)) as never }))
    server.setRequestHandler(
      'resources/read',
      async (request) => (await readResource(c, request.params.uri)) as never,
    )
    server.setRequestHandler('prompts/list', () => ({ prompts: prompts as never }))
    server.setRequestHandler(
      'prompts/get',
      async (request) => (await getPrompt(c, request.params.name, request.params.arguments)) as never,
    )
    return server
  }
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
    const server = factory({ era: 'legacy', authInfo, requestInfo: request })
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
      void transport.close().catch(() => {})
      void server.close().catch(() => {})
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
        parsedBody = JSON.parse(new TextDecoder().decode(raw))
      } catch {
        forward = new Request(request.url, {
          method: 'POST',
          headers: request.headers,
          body: raw as BodyInit,
        })
      }
    }
    // The SDK's own classification: no per-request envelope (initialize, 2025-era calls, GET
    // and DELETE, a body that does not parse) is legacy. The plain 2025-era call is recognised
    // here without it (the SDK's schema checks cost as much as the call itself).
    const isModern =
      parsedBody !== undefined &&
      !plainLegacy(request, parsedBody) &&
      !(await isLegacyRequest(request, parsedBody))
    return isModern ? modern.fetch(request, { authInfo, parsedBody }) : legacy(forward, parsedBody, authInfo)
  }
}
