import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

// Both official MCP SDK clients over real HTTP: v1 (@modelcontextprotocol/sdk, 2025 revisions)
// and v2 (@modelcontextprotocol/client, negotiating 2026-07-28). Tests run the same checks
// through each, as an assistant would connect.

export type SdkName = 'v1' | 'v2'
export const SDKS: readonly SdkName[] = ['v1', 'v2']

// biome-ignore lint/suspicious/noExplicitAny: results are inspected freely in tests
type Any = any

/** The calls the tests make; both SDKs' clients have them with these shapes. */
export interface McpClient {
  sdk: SdkName
  protocolVersion(): string | undefined
  serverInfo(): Any
  instructions(): string | undefined
  listTools(): Promise<{ tools: Any[] }>
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Any>
  listResources(): Promise<Any>
  listResourceTemplates(): Promise<Any>
  readResource(params: { uri: string }): Promise<Any>
  listPrompts(): Promise<Any>
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<Any>
  close(): Promise<void>
}

/** Connects one SDK's client to `url` with `key` as the Bearer credential. */
export async function connectMcp(sdk: SdkName, url: string, key: string): Promise<McpClient> {
  const requestInit = { headers: { authorization: `Bearer ${key}` } }
  const info = { name: `herald-test-${sdk}`, version: '1.0.0' }
  const client: Any =
    sdk === 'v1' ? new ClientV1(info) : new ClientV2(info, { versionNegotiation: { mode: 'auto' } })
  const transport: Any =
    sdk === 'v1'
      ? new TransportV1(new URL(url), { requestInit })
      : new TransportV2(new URL(url), { requestInit })
  await client.connect(transport)
  return {
    sdk,
    protocolVersion: () => transport.protocolVersion ?? client.getNegotiatedProtocolVersion?.(),
    serverInfo: () => client.getServerVersion(),
    instructions: () => client.getInstructions(),
    listTools: () => client.listTools(),
    callTool: (p) => client.callTool(p),
    listResources: () => client.listResources(),
    listResourceTemplates: () => client.listResourceTemplates(),
    readResource: (p) => client.readResource(p),
    listPrompts: () => client.listPrompts(),
    getPrompt: (p) => client.getPrompt(p),
    close: () => client.close(),
  }
}

/** The REST answer a tool returned (`structuredContent`), after checking the text says the same. */
export function answerOf(result: Any): Any {
  const text = result.content?.find((c: Any) => c.type === 'text')?.text
  if (text === undefined || JSON.stringify(JSON.parse(text)) !== JSON.stringify(result.structuredContent))
    throw new Error(`the text content does not carry the structured answer: ${JSON.stringify(result)}`)
  return result.structuredContent
}

/** Serves an in-process app on a loopback port (real HTTP, as clients connect). */
export function serveApp(app: { handle(r: Request): Promise<Response> | Response }) {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (r) => app.handle(r) })
  const base = `http://127.0.0.1:${server.port}`
  return { base, url: `${base}/mcp/v1`, stop: () => server.stop(true) }
}
