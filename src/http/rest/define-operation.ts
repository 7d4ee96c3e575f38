import { type TObject, type TSchema, Type as t } from '@sinclair/typebox'
import type { Scope } from '../../lib/scopes'
import type { AnyVerb, Verb } from '../../services/verbs/define'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

interface OperationBase {
  /** operationId in OpenAPI, and the MCP tool name (in snake_case). */
  id: string
  method: HttpMethod
  /** OpenAPI-style path, exactly as the spec writes it: `/api/v1/clients/{id}`. */
  path: string
  tag: string
  summary: string
  description?: string
  /** Schema of the whole 200 body (`{data: …}` for resources). */
  response: TSchema
  /** Path parameters that are not record ids (ids are parsed, and a non-id is 404). */
  rawParams?: readonly string[]
  /**
   * A body the verb takes as a file (CSV uploads, raw MIME): the pipeline checks its type (415)
   * and size (413) and spools it to disk instead of reading JSON; of a multipart/form-data body
   * only the part named `part` is kept.
   */
  stream?: { contentTypes: readonly string[]; limit: number; part?: string }
  /**
   * An unauthenticated endpoint with its own per-IP bucket (agent register, claim and revoke:
   * 20/min per IP each by default; HERALD_LOGIN_RATE_PER_MINUTE).
   */
  perIpLimit?: boolean
  /** Readable from any origin (CORS `*`): discovery documents a browser-based client fetches. */
  cors?: boolean
  /** MCP hint; reads are inferred from GET. */
  destructive?: boolean
  /**
   * A delete the verb refuses while other records use the one to delete (409 CONFLICT with
   * `details.used_by`). Only these operations declare that 409 body, so a typed client of any
   * other keeps CONFLICT's one `existing_id` shape.
   */
  refusesInUse?: boolean
  /** `any` = any valid credential (the spec's "default"); `none` = public. */
  auth: 'any' | 'none' | Scope
  /** The JSON body's schema, for OpenAPI and the body check (absent = no JSON body). */
  body?: TSchema
  /** The query string's schema, for OpenAPI and coercion. */
  query?: TSchema
  /**
   * Input members the OpenAPI document describes more strictly than the verb's schema checks
   * (segment rules, webhook events, launch's `confirm`): the service checks them itself, so every
   * failure keeps its own message. The document only; requests are validated as before.
   */
  documented?: Record<string, TSchema>
  /** The media type of a `download` answer (`text/csv`). */
  mediaType?: string
  /** An example request body and 200 answer, shown in the document. */
  example?: { request?: unknown; response?: unknown }
}

/**
 * An operation is a verb behind a method and a path. It says only how the request maps onto
 * the verb's input (path ids, the named query members, the rest from the JSON body) and how the
 * result is answered; the verb owns scope, validation and the transaction.
 */
export interface Operation extends OperationBase {
  verb: AnyVerb
  /** Input members read from the query string. */
  queryMembers: readonly string[]
  /** Input members read from the JSON body. */
  bodyMembers: readonly string[]
  /** `data`: `{data: result}`; `as-is`: the result is the body (lists: `{data, pagination}`); `download`: a file. */
  answer: 'data' | 'as-is' | 'download'
}

type Declared = Omit<OperationBase, 'auth' | 'body' | 'query'> & {
  /** Input members read from the query string (the rest, beyond path ids, come from the body). */
  query?: readonly string[]
  answer?: Operation['answer']
}

const members = (schema: TObject, names: readonly string[]) =>
  t.Object(Object.fromEntries(names.map((n) => [n, schema.properties[n]!])), { additionalProperties: false })

/** Declares a REST operation over a verb. */
export function route<V extends Verb<TSchema, unknown, unknown>>(verb: V, def: Declared): Operation {
  const input = verb.input as TSchema as TObject
  const properties = Object.keys(input.properties ?? {})
  const pathNames = [...def.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
  const queryMembers = def.query ?? []
  for (const name of [...pathNames, ...queryMembers, ...Object.keys(def.documented ?? {})])
    if (!properties.includes(name))
      throw new Error(`${def.id}: ${name} is not a member of ${verb.name}'s input`)
  const bodyMembers = def.stream
    ? []
    : properties.filter((p) => !pathNames.includes(p) && !queryMembers.includes(p))
  if (def.method === 'GET' && bodyMembers.length > 0)
    throw new Error(`${def.id}: a GET cannot take ${bodyMembers.join(', ')} from a body; list them in query`)
  return {
    ...def,
    verb: verb as unknown as AnyVerb,
    auth: verb.scope === 'public' ? 'none' : verb.scope,
    destructive: def.destructive ?? verb.destructive,
    queryMembers,
    bodyMembers,
    answer: def.answer ?? 'data',
    query: queryMembers.length > 0 ? members(input, queryMembers) : undefined,
    body: bodyMembers.length > 0 ? members(input, bodyMembers) : undefined,
  }
}

export const isMutating = (o: Operation) => o.method !== 'GET'
