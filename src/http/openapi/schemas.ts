import type { TSchema } from '@sinclair/typebox'

// Schemas for the OpenAPI document: TypeBox → JSON Schema, names → components.schemas (every use
// a $ref), free-form maps → additionalProperties, inline copies of named schemas → $refs.

export type Json = Record<string, unknown>

const SCHEMA_NAME = Symbol.for('herald.openapi.schema-name')

/**
 * Names a schema in the document: it appears once under `components.schemas` and every use is
 * a `$ref`. Validation does not see the name (a symbol key; JSON and TypeBox ignore it).
 */
export function named<T extends TSchema>(name: string, schema: T): T {
  return { ...schema, [SCHEMA_NAME]: name }
}

/** What the server accepts as an id (src/lib/ids.ts): a UUID or a prefixed id, any case. */
export const ID_PATTERN =
  '^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[a-zA-Z]{3}_[0-9a-fA-F]{32})$'

// ---------------------------------------------------------------------------------------------
// Schemas: TypeBox → JSON Schema, names → components, free-form maps → additionalProperties.

export class SchemaRegistry {
  readonly schemas: Record<string, Json> = {}
  private readonly sources = new Map<string, unknown>()

  /** Plain JSON Schema for the document; named schemas become `$ref`s. */
  toJson(schema: unknown): unknown {
    if (Array.isArray(schema)) return schema.map((s) => this.toJson(s))
    if (typeof schema !== 'object' || schema === null) return schema
    const name = (schema as Record<symbol, unknown>)[SCHEMA_NAME]
    if (typeof name === 'string') {
      this.add(name, schema, () => this.convert(schema as Json))
      return { $ref: `#/components/schemas/${name}` }
    }
    return this.convert(schema as Json)
  }

  /** Registers a named schema (once; a second, different schema under the same name is a bug). */
  add(name: string, source: unknown, build: () => Json): void {
    const known = this.sources.get(name)
    if (known !== undefined) {
      if (known !== source && canonical(this.convert(source as Json)) !== canonical(this.schemas[name]))
        throw new Error(`OpenAPI: two different schemas are named ${name}`)
      return
    }
    this.sources.set(name, source)
    this.schemas[name] = {} // reserved first, so a schema that contains itself terminates
    this.schemas[name] = build()
  }

  private convert(schema: Json): Json {
    const out: Json = {}
    // `x-…` keywords are the validator's own hints (src/lib/validate.ts), not for clients.
    for (const [key, value] of Object.entries(schema))
      if (!key.startsWith('x-')) out[key] = this.toJson(value)
    // TypeBox's t.Record(t.String(), X) is `patternProperties {"^(.*)$": X}`: say additionalProperties.
    const pattern = out.patternProperties as Json | undefined
    if (pattern && Object.keys(pattern).length === 1 && '^(.*)$' in pattern) {
      out.additionalProperties = pattern['^(.*)$']
      delete out.patternProperties
    }
    // A union of literals is an enum (generators emit one type instead of a union of consts).
    const anyOf = out.anyOf as Json[] | undefined
    if (
      anyOf &&
      anyOf.length > 1 &&
      anyOf.every((s) => 'const' in s && Object.keys(s).every((k) => k === 'const' || k === 'type')) &&
      new Set(anyOf.map((s) => s.type)).size === 1 &&
      anyOf[0]!.type !== undefined
    ) {
      out.type = anyOf[0]!.type
      out.enum = anyOf.map((s) => s.const)
      delete out.anyOf
    }
    return out
  }
}

/** JSON with sorted keys: two schemas are the same when their canonical texts are. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v as Json)
            .sort()
            .map((k) => [k, (v as Json)[k]]),
        )
      : v,
  )
}

/** Worth a `$ref` when an inline copy of a named schema turns up elsewhere: objects and enums. */
const referable = (s: Json) => (s.type === 'object' && s.properties !== undefined) || s.enum !== undefined

/** Replaces inline copies of named schemas by `$ref`s (enums reused in inputs and resources). */
export function dedupe(doc: Json, schemas: Record<string, Json>): void {
  const byText = new Map<string, string>()
  for (const [name, s] of Object.entries(schemas))
    if (referable(s) && !byText.has(canonical(s))) byText.set(canonical(s), name)
  const walk = (node: unknown, root?: string): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n))
    if (typeof node !== 'object' || node === null) return node
    const json = node as Json
    if (root === undefined && referable(json)) {
      const name = byText.get(canonical(json))
      if (name) return { $ref: `#/components/schemas/${name}` }
    }
    for (const [k, v] of Object.entries(json)) if (k !== 'example') json[k] = walk(v)
    return json
  }
  walk(doc.paths)
  for (const [name, s] of Object.entries(schemas)) walk(s, name)
}

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
