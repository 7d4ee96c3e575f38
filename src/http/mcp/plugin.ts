import type { Elysia } from 'elysia'
import { ServiceError } from '../../errors'
import { presentedCredential } from '../middleware/auth'
import { isJsonType, readLimited } from '../middleware/body'
import type { Operation } from '../rest/define-operation'
import { handled } from '../rest/envelope'
import { admitBatch, admitCredential, type Pipeline, type RequestMeta } from '../rest/pipeline'
import { errorResponse } from '../rest/respond'
import { messagesIn } from './batch'
import { buildServerCard, SERVER_CARD_TYPE } from './card'
import { MCP_BODY_LIMIT } from './limits'
import type { CallerInfo, createMcpServer } from './server'
import { buildCatalog } from './tools'
import { MCP_PATH } from './versions'

// The MCP door: /mcp/v1 and the server card. Routes of their own, so the REST
// operations' path gains nothing. The credential is admitted here once per HTTP request (401
// with the MCP resource's challenge, one rate-limit token, and one more for each further call of
// a JSON-RPC batch); each tool call then runs the REST pipeline from the scope check on (./call.ts).

/**
 * Browser-based clients (the MCP Inspector) call with a bearer credential, never cookies. A
 * response names the origin and the headers a script may read; what a request may send (methods,
 * headers, how long that holds) is answered to the preflight only, the one place it is read.
 */
const CORS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'www-authenticate, mcp-protocol-version, mcp-session-id, x-request-id, retry-after',
}
const PREFLIGHT: Record<string, string> = {
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers':
    'authorization, x-api-key, content-type, accept, mcp-protocol-version, mcp-method, mcp-name, mcp-session-id, last-event-id, x-request-id',
  'access-control-max-age': '86400',
}

const CORS_ENTRIES = Object.entries(CORS)

const withHeaders = (response: Response, headers: Record<string, string>) => {
  for (const name in headers) response.headers.set(name, headers[name]!)
  for (const [name, value] of CORS_ENTRIES) response.headers.set(name, value)
  return response
}

/**
 * The request body within MCP_BODY_LIMIT. A body with a Content-Length within the limit is
 * exactly that long (HTTP/1.1 framing), so Bun reads it natively in one piece; only a chunked
 * body is read as a stream, counting bytes as they come. The stream read costs ~30 µs of server
 * CPU per call over HTTP (test/bench/mcp.ts), a fifth of a read tool call.
 */
async function readBody(request: Request): Promise<Uint8Array> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) <= MCP_BODY_LIMIT) return request.bytes()
  return readLimited(request, MCP_BODY_LIMIT)
}

export const SERVER_CARD_PATHS = [
  `${MCP_PATH}/server-card`,
  '/mcp/.well-known/mcp/server-card.json',
  '/.well-known/mcp/server-card.json',
]

type McpServe = ReturnType<typeof createMcpServer>

export interface MountOptions {
  /** Loads ./server (a test counts the loads); the dynamic import everywhere else. */
  loadServer?: () => Promise<typeof import('./server')>
}

export function mountMcp(
  app: Elysia,
  p: Pipeline,
  operations: readonly Operation[],
  { loadServer = () => import('./server') }: MountOptions = {},
): void {
  const catalog = buildCatalog(operations)
  const log = p.app.log

  // The SDK-backed server is built on the first /mcp/v1 request, not at start: the MCP SDK and
  // zod (./sdk.ts, all of ./server.ts's own imports) are ~7 MB of idle RSS that an instance no
  // assistant talks to never needs (docs/performance.md: idle RSS). `bun build --compile`
  // bundles the dynamic import, so the executable loads it from itself. The catalog and the
  // server card stay eager (they need no SDK). A failed load is not kept: the next request tries again.
  let server: Promise<McpServe> | undefined
  const serverOf = (): Promise<McpServe> => {
    server ??= loadServer().then(
      (m) => m.createMcpServer(p, catalog),
      (err: unknown) => {
        server = undefined
        throw err
      },
    )
    return server
  }

  async function endpoint(request: Request, meta: RequestMeta): Promise<Response> {
    const headers: Record<string, string> = {}
    try {
      if (p.app.lifecycle.draining)
        throw new ServiceError('UNAVAILABLE', 'The server is shutting down; retry shortly')
      const actor = await admitCredential(p, request, headers, meta, MCP_PATH)
      let raw: Uint8Array | null = null
      if (request.method === 'POST') {
        const type = request.headers.get('content-type')
        if (type === null || !isJsonType(type))
          throw new ServiceError(
            'UNSUPPORTED_MEDIA_TYPE',
            `Content-Type ${type ?? '(none)'} is not supported; send application/json`,
          )
        raw = await readBody(request)
        await admitBatch(p, actor, messagesIn(raw), headers)
      }
      const extra: CallerInfo = { actor, requestId: meta.requestId }
      const serve = await serverOf()
      const response = await serve(request, raw, {
        token: presentedCredential(request).token ?? '',
        clientId: actor.clientId ?? '',
        scopes: [...actor.scopes],
        extra: extra as unknown as Record<string, unknown>,
      })
      return withHeaders(response, headers)
    } catch (err) {
      const { response, internal } = errorResponse(err, meta.requestId, headers)
      if (internal)
        log.error('mcp request failed', {
          request_id: meta.requestId,
          error: String((err as Error)?.stack ?? err),
        })
      return withHeaders(response, {})
    }
  }

  const mcp = (c: { request: Request; route: string }) =>
    handled(p.app, { request: c.request, route: c.route }, async (meta) => await endpoint(c.request, meta))
  const options = { parse: 'none' as const, detail: { hide: true } }
  for (const method of ['POST', 'GET', 'DELETE']) app.route(method, MCP_PATH, mcp, options)

  // The card lists every tool; built once (the registry does not change at run time).
  const card = JSON.stringify(buildServerCard(catalog, p.app.config.publicUrl))
  const serveCard = (c: { request: Request; route: string }) =>
    handled(p.app, { request: c.request, route: c.route }, () =>
      withHeaders(new Response(card, { headers: { 'content-type': SERVER_CARD_TYPE } }), {}),
    )
  const preflight = (c: { request: Request; route: string }) =>
    handled(p.app, { request: c.request, route: c.route }, () =>
      withHeaders(new Response(null, { status: 204 }), PREFLIGHT),
    )
  for (const path of SERVER_CARD_PATHS) app.route('GET', path, serveCard, options)
  for (const path of [MCP_PATH, ...SERVER_CARD_PATHS]) app.route('OPTIONS', path, preflight, options)
}
