import { isPlainObject } from '../../lib/plain-object'
import type { Answer } from './call'
import { specTypeSchemas } from './sdk'
import type { ToolCatalog, ToolDef } from './tools'
import { ENVELOPE_CLAIM, LEGACY_VERSIONS, MODERN_VERSION } from './versions'

// The plain tools/call, answered without the SDK's per-request server, so a read tool call
// costs little more than its REST round trip (the aim: within 1.5 x). A call is most of what
// an assistant sends, and for one the SDK builds a transport, connects a server, checks the
// message against its schemas a dozen times and serializes the answer: about 40-70 µs of
// server CPU, more than the call's own work.
//
// Only a request in the exact shape both official SDK clients send is taken here, each member
// checked to be what the SDK itself would accept; anything else (another member, another
// header value, a batch, an unknown tool, a _meta the SDK reads) goes to the SDK, which decides
// as before. The answer is the SDK's own, byte for byte: test/http/mcp/direct-call.test.ts runs
// the same requests through both and compares, and the SDK clients' tests go through here.

const ACCEPT = 'application/json, text/event-stream'
const VERSION_KEY = ENVELOPE_CLAIM
const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo'
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities'

export interface DirectCall {
  tool: ToolDef
  args: Record<string, unknown> | undefined
  id: string | number
  /** A 2026-07-28 request (its answer names the result type and the server). */
  modern: boolean
}

export interface ServerInfo {
  name: string
  title: string
  version: string
}

/** Only these own keys, and every one of `required` among them. */
function keysWithin(o: Record<string, unknown>, allowed: readonly string[], required: readonly string[]) {
  let n = 0
  for (const key in o) {
    if (!allowed.includes(key)) return false
    n++
  }
  return n >= required.length && required.every((key) => key in o)
}

const valid = (schema: (typeof specTypeSchemas)['Implementation' | 'ClientCapabilities'], v: unknown) => {
  const outcome = schema['~standard'].validate(v)
  return !(outcome instanceof Promise) && outcome.issues === undefined
}

/** The 2026-07-28 envelope exactly as the SDK clients send it, and valid by the SDK's own schemas. */
function plainEnvelope(meta: unknown): boolean {
  return (
    isPlainObject(meta) &&
    keysWithin(
      meta,
      [VERSION_KEY, CLIENT_INFO_KEY, CAPABILITIES_KEY],
      [VERSION_KEY, CLIENT_INFO_KEY, CAPABILITIES_KEY],
    ) &&
    meta[VERSION_KEY] === MODERN_VERSION &&
    isPlainObject(meta[CLIENT_INFO_KEY]) &&
    valid(specTypeSchemas.Implementation, meta[CLIENT_INFO_KEY]) &&
    isPlainObject(meta[CAPABILITIES_KEY]) &&
    valid(specTypeSchemas.ClientCapabilities, meta[CAPABILITIES_KEY])
  )
}

/** The call in `body` when it is a plain tools/call of a known tool; null sends the request to the SDK. */
export function plainToolCall(request: Request, body: unknown, catalog: ToolCatalog): DirectCall | null {
  if (!isPlainObject(body) || body.method !== 'tools/call' || body.jsonrpc !== '2.0') return null
  if (!keysWithin(body, ['jsonrpc', 'id', 'method', 'params'], ['jsonrpc', 'id', 'method', 'params']))
    return null
  const { id, params } = body
  if (!(typeof id === 'string' || Number.isSafeInteger(id)) || !isPlainObject(params)) return null
  const { name, arguments: args } = params
  if (typeof name !== 'string' || !(args === undefined || isPlainObject(args))) return null
  // An own `__proto__` member: the SDK's copy of the arguments makes it the prototype; its call.
  if (args !== undefined && Object.hasOwn(args, '__proto__')) return null
  const tool = catalog.byName.get(name)
  if (!tool) return null
  const headers = request.headers
  if (headers.get('accept') !== ACCEPT || headers.get('content-type') !== 'application/json') return null
  const version = headers.get('mcp-protocol-version')
  if (version === MODERN_VERSION) {
    if (headers.get('mcp-method') !== 'tools/call' || headers.get('mcp-name') !== name) return null
    if (!keysWithin(params, ['name', 'arguments', '_meta'], ['name', '_meta'])) return null
    if (!plainEnvelope(params._meta)) return null
    return { tool, args, id: id as string | number, modern: true }
  }
  if (version !== null && !LEGACY_VERSIONS.has(version)) return null
  // A 2025-era call without _meta (a progress token or a task there asks more of the SDK).
  if (!keysWithin(params, ['name', 'arguments'], ['name'])) return null
  return { tool, args, id: id as string | number, modern: false }
}

/**
 * Writes the JSON-RPC answer the SDK gives for a call: the REST answer as text content and as
 * structuredContent (its text is written in as it is: it is already the JSON of that object). The
 * 2026-07-28 tail (result type and server identity) is the same for every call: made once.
 */
export function directAnswerer(server: ServerInfo) {
  const modernTail = `,"resultType":"complete","_meta":${JSON.stringify({ 'io.modelcontextprotocol/serverInfo': server })}`
  return (call: DirectCall, answer: Answer): Response => {
    const result =
      `{"content":[{"type":"text","text":${JSON.stringify(answer.text)}}],"structuredContent":${answer.text}` +
      `${answer.ok ? '' : ',"isError":true'}${call.modern ? modernTail : ''}}`
    return new Response(`{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}`, {
      headers: { 'content-type': 'application/json' },
    })
  }
}
