import type { FieldError } from '../../errors'
import { ServiceError, validationFailed } from '../../errors'
import { isPlainObject } from '../../lib/plain-object'
import type { Actor } from '../../services/actors/actor'
import type { Json } from '../openapi/schemas'
import { idempotencyKeyProblem, type Pipeline, type RequestMeta, runOperation } from '../rest/pipeline'
import { errorResponse } from '../rest/respond'
import type { ToolDef } from './tools'

// A tool call is a REST request made in-process: the arguments are laid out as the operation's
// path, query string and body, and the request goes through the same runOperation as the REST
// door (scope, ids, idempotency, validation, the verb's transaction), with the credential the
// MCP endpoint already admitted. One code path; this file only translates.

/** A tool's answer as the REST door wrote it. */
export interface Answer {
  ok: boolean
  /** The REST answer's JSON text: `{data, pagination?}`, or the error body `{error: {code, message, …}}`. */
  text: string
}

export interface Outcome extends Answer {
  /** `text`, parsed. */
  body: Json
}

interface Laid {
  path: string
  params: Record<string, string>
  /** Made when a query member is given (most calls have none). */
  query: URLSearchParams | null
  body: Record<string, unknown> | null
  file: string | null
  idempotencyKey: string | null
}

/** The arguments as path, query and body; a member the tool does not take is refused (422). */
function layOut(d: ToolDef, args: Record<string, unknown>): Laid {
  const o = d.operation
  const errors: FieldError[] = []
  const laid: Laid = {
    path: o.path,
    params: {},
    query: null,
    // Every call that may carry a body sends one, so REST names a member the operation does
    // not take together with what the verb's schema says of the rest.
    body: o.method === 'GET' ? null : {},
    file: null,
    idempotencyKey: null,
  }
  for (const name of d.pathNames) {
    // Own members only: an inherited one (a `__proto__` member in the JSON) is not an argument.
    const value = Object.hasOwn(args, name) ? args[name] : undefined
    if (typeof value !== 'string' || value === '')
      errors.push({ field: name, message: 'is required (a record id)' })
    // A lone surrogate has no URL form (encodeURIComponent throws): no record has such an id.
    else if (!value.isWellFormed()) errors.push({ field: name, message: 'is not a record id' })
    else {
      laid.params[name] = encodeURIComponent(value)
      laid.path = laid.path.replace(`{${name}}`, laid.params[name]!)
    }
  }
  for (const [name, value] of Object.entries(args)) {
    if (d.pathNames.includes(name) || value === undefined) continue
    if (name === 'idempotency_key' && o.method !== 'GET') {
      const problem = typeof value === 'string' ? idempotencyKeyProblem(value) : 'must be a string'
      if (problem) errors.push({ field: name, message: problem })
      else laid.idempotencyKey = value as string
    } else if (d.file && name === d.file.member) {
      if (typeof value !== 'string') errors.push({ field: name, message: 'must be a string' })
      else laid.file = value
    } else if (o.queryMembers.includes(name)) {
      if (isPlainObject(value) || Array.isArray(value) || value === null)
        errors.push({ field: name, message: 'must be a string, number or boolean' })
      else {
        laid.query ??= new URLSearchParams()
        laid.query.set(name, String(value))
      }
    } else if (laid.body) laid.body[name] = value
    else errors.push({ field: name, message: 'is not a known member' })
  }
  if (d.file && laid.file === null) errors.push({ field: d.file.member, message: 'is required' })
  if (errors.length > 0) throw validationFailed(errors)
  if (d.file && laid.file !== null && Buffer.byteLength(laid.file) > d.file.limit)
    throw new ServiceError('PAYLOAD_TOO_LARGE', `${d.file.member} is larger than ${d.file.limit} bytes`)
  return laid
}

/** The arguments laid out as the REST request the operation takes. */
function requestOf(p: Pipeline, d: ToolDef, laid: Laid): Request {
  const headers: Record<string, string> = {}
  let body: string | undefined
  if (laid.file !== null && d.file) {
    headers['content-type'] = d.file.contentType
    body = laid.file
  } else if (laid.body) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(laid.body)
  }
  if (laid.idempotencyKey !== null) headers['idempotency-key'] = laid.idempotencyKey
  const search = laid.query ? `?${laid.query}` : ''
  return new Request(`${p.app.config.publicUrl}${laid.path}${search}`, {
    method: d.operation.method,
    headers,
    body,
  })
}

async function answerOf(response: Response): Promise<Answer> {
  return { ok: response.status === 200, text: await response.text() }
}

/** Runs one tool for an actor the MCP endpoint admitted; failures come back as the REST error body. */
export async function runTool(
  p: Pipeline,
  d: ToolDef,
  args: Record<string, unknown> | undefined,
  actor: Actor,
  requestId: string,
): Promise<Outcome> {
  const answer = await answerTool(p, d, args, actor, requestId)
  return { ...answer, body: JSON.parse(answer.text) as Json }
}

/** runTool's answer as text only, for a caller that writes it out as it is (./direct-call.ts). */
export async function answerTool(
  p: Pipeline,
  d: ToolDef,
  args: Record<string, unknown> | undefined,
  actor: Actor,
  requestId: string,
): Promise<Answer> {
  let laid: Laid
  let request: Request
  try {
    laid = layOut(d, args ?? {})
    // Inside the try: nothing a caller sends may escape as an HTTP 500 of the whole MCP request.
    request = requestOf(p, d, laid)
  } catch (err) {
    return answerOf(errorResponse(err, requestId).response)
  }
  const meta: RequestMeta = { requestId, actor, keyId: actor.id }
  return answerOf(await runOperation(p, d.operation, request, laid.params, meta))
}
