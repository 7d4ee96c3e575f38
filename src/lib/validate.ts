import type { TSchema } from '@sinclair/typebox'
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler'
import './formats'

/** One failing input member: its path as a client wrote it (`rule_groups[1].rules[0]`) and why. */
export interface FieldError {
  field: string
  message: string
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>()

function checker(schema: TSchema): TypeCheck<TSchema> {
  let c = compiled.get(schema)
  if (!c) {
    c = TypeCompiler.Compile(schema)
    compiled.set(schema, c)
  }
  return c
}

/** JSON pointer `/rule_groups/1/rules/0/operator` → `rule_groups[1].rules[0].operator`. */
export function fieldName(pointer: string, root: string): string {
  if (pointer === '') return root
  let out = ''
  for (const part of pointer.slice(1).split('/')) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~')
    out += /^\d+$/.test(key) ? `[${key}]` : out === '' ? key : `.${key}`
  }
  return out
}

function humanMessage(message: string, schema: TSchema): string {
  if (message === 'Unexpected property') return 'is not a known member'
  if (message === 'Expected required property') return 'is required'
  if (schema.pattern === '\\S') return 'must not be blank'
  if (schema.format && message.startsWith('Expected string to match'))
    return `must be a valid ${schema.format}`
  if (schema.enum || schema.anyOf) {
    const values = (schema.anyOf as TSchema[] | undefined)?.map((s) => s.const).filter((v) => v !== undefined)
    if (values?.length) return `must be one of: ${values.join(', ')}`
  }
  return message
    .replace(/^Expected /, 'must be ')
    .replace('less or equal to', 'at most')
    .replace('greater or equal to', 'at least')
}

/** Every failing field, one message each (the first TypeBox reports for it). */
export function validate(schema: TSchema, value: unknown, root: string): FieldError[] {
  const c = checker(schema)
  if (c.Check(value)) return []
  const seen = new Map<string, string>()
  for (const e of c.Errors(value)) {
    const field = fieldName(e.path, root)
    if (!seen.has(field)) seen.set(field, humanMessage(e.message, e.schema))
  }
  return [...seen].map(([field, message]) => ({ field, message }))
}

/**
 * Query strings arrive as text: convert numbers and booleans the schema asks for. Only exact
 * spellings convert ("2.5" stays text for an integer, so it fails validation instead of truncating).
 */
export function coerceQuery(schema: TSchema, query: Record<string, string>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, TSchema>
  const out: Record<string, unknown> = { ...query }
  for (const [name, value] of Object.entries(query)) {
    const type = properties[name]?.type
    if ((type === 'integer' && /^-?\d+$/.test(value)) || (type === 'number' && /^-?\d+(\.\d+)?$/.test(value)))
      out[name] = Number(value)
    else if (type === 'boolean' && (value === 'true' || value === 'false')) out[name] = value === 'true'
  }
  return out
}
