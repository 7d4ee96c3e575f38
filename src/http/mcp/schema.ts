import type { TSchema } from '@sinclair/typebox'
import { type Json, SchemaRegistry } from '../openapi/schemas'
import type { Operation } from '../rest/define-operation'

// A tool's input is one JSON Schema object holding the operation's path ids, query members and
// body members, converted by the OpenAPI document's own converter (free-form maps,
// enums, validator hints dropped) with every named schema inlined: a model reads one object.

const REF = '#/components/schemas/'

function inline(node: unknown, schemas: Record<string, Json>, seen: readonly string[]): unknown {
  if (Array.isArray(node)) return node.map((n) => inline(n, schemas, seen))
  if (typeof node !== 'object' || node === null) return node
  const json = node as Json
  if (typeof json.$ref === 'string' && json.$ref.startsWith(REF)) {
    const name = json.$ref.slice(REF.length)
    // A schema that contains itself stays open below its first level.
    if (seen.includes(name)) return {}
    return inline(schemas[name], schemas, [...seen, name])
  }
  return Object.fromEntries(Object.entries(json).map(([k, v]) => [k, inline(v, schemas, seen)]))
}

/** Plain, self-contained JSON Schema for one TypeBox schema. */
export function plainSchema(schema: TSchema): Json {
  const registry = new SchemaRegistry()
  return inline(registry.toJson(schema), registry.schemas, []) as Json
}

export interface ToolInput {
  schema: Json
  pathNames: string[]
}

const CLIENT_ID =
  'The client (workspace) to act in, as a UUID or cli_… id. Only for platform-wide keys: required when creating, an optional filter when reading; a workspace key always acts in its own workspace and this is ignored.'
const IDEMPOTENCY_KEY =
  'Optional. Retrying with the same key (1–255 characters) within 24 hours returns the first result instead of acting twice; use one when a call may be retried.'

/** The members of one operation as a tool's input (path ids, query and body members). */
export function toolInput(o: Operation, extra: Record<string, Json> = {}): ToolInput {
  const input = o.verb.input as TSchema
  const properties: Record<string, Json> = {}
  const required: string[] = []
  const pathNames = [...o.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
  const inputProps = (input.properties ?? {}) as Record<string, TSchema>
  for (const name of pathNames) {
    const schema = plainSchema(inputProps[name]!)
    // No pattern: a model reads the description, and an id that is none is a plain 404.
    if (!o.rawParams?.includes(name)) {
      schema.type = 'string'
      schema.description ??= 'Record id: a UUID or a prefixed id (cmp_…, con_…)'
    }
    properties[name] = schema
    required.push(name)
  }
  for (const part of [o.query, o.body]) {
    if (!part) continue
    const members = (part.properties ?? {}) as Record<string, TSchema>
    const needed = new Set((part.required as string[] | undefined) ?? [])
    for (const [name, s] of Object.entries(members)) {
      const schema = plainSchema(o.documented?.[name] ?? s)
      // A credential's own workspace rule, which means nothing where no credential is sent
      // (agent registration names the workspace it asks for in its own words).
      if (name === 'client_id' && o.auth !== 'none') schema.description = CLIENT_ID
      properties[name] = schema
      if (needed.has(name)) required.push(name)
    }
  }
  Object.assign(properties, extra)
  if (o.method !== 'GET')
    properties.idempotency_key = {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description: IDEMPOTENCY_KEY,
    }
  return {
    pathNames,
    schema: { type: 'object', properties, required, additionalProperties: false },
  }
}
