import {
  createMcpHandler,
  type McpRequestContext,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from '@modelcontextprotocol/server'
import type { Actor } from '../../services/actors/actor'
import { VERSION } from '../../version'
import type { Pipeline } from '../pipeline'
import { runTool } from './call'
import { getPrompt, prompts } from './prompts'
import { listResources, type ResourceCaller, readResource, resourceTemplates } from './resources'
import type { ToolCatalog } from './tools'
import { PROTOCOL_VERSIONS } from './versions'

// The MCP server behind /mcp/v1: stateless, one low-level Server per HTTP request (the SDK's
// createMcpHandler builds it from this factory for both protocol eras). The low-level Server
// takes the generated JSON Schemas as they are; the catalog is built once per process.

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
  return createMcpHandler(factory, {
    maxRequestBodySize: MCP_BODY_LIMIT,
    onerror: (error) => p.app.log.warn('mcp request refused', { error: error.message }),
  })
}
