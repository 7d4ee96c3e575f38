import { Kind, type TSchema } from '@sinclair/typebox'
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler'
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors'
import { registerFormats } from './formats'
import { isPlainObject } from './plain-object'

/** One failing input member: its path as a client wrote it (`rule_groups[1].rules[0]`) and why. */
export interface FieldError {
  field: string
  message: string
}

// Input hygiene. Every string of an input refuses control characters: C0 (tab and
// newline included) and C1, and DEL. A string marked `x-multiline` (bodies, descriptions) may
// hold tab, newline and carriage return. Strings get this rule when their schema is compiled,
// so a member added later is covered without anyone remembering to.
const CONTROL = String.raw`\x00-\x1f\x7f-\x9f`
const TEXT_CONTROL = String.raw`\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f`
/** One line of text: no control characters. */
export const LINE_PATTERN = `^[^${CONTROL}]*$`
/** Multi-line text: no control characters but tab, newline and carriage return. */
export const TEXT_PATTERN = `^[^${TEXT_CONTROL}]*$`
// Characters that show nothing: format characters (zero-width space and joiners, bidi marks,
// soft hyphen, BOM, word joiner…), fillers (Hangul, braille blank) and variation selectors.
const INVISIBLE = String.raw`\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb`
/**
 * A name: one line (no control characters) with at least one visible character, so neither
 * white space nor zero-width characters alone. Written without the `u` flag (JSON Schema
 * patterns have none): an astral character is a surrogate pair, and the pairs of plane 14
 * (tags, variation selectors) are invisible.
 */
export const NAME_PATTERN = `^[^${CONTROL}]*(?:[^\\s${CONTROL}${INVISIBLE}\\ud800-\\udfff]|(?!\\udb40)[\\ud800-\\udbff][\\udc00-\\udfff])[^${CONTROL}]*$`

const HAS_CONTROL = new RegExp(`[${CONTROL}]`)

/** The schema as checked: every string without a pattern of its own refuses control characters. */
function hygienic(schema: TSchema): TSchema {
  if (typeof schema !== 'object' || schema === null) return schema
  const out: Record<string | symbol, unknown> = { ...schema }
  if (schema[Kind] === 'String' && schema.pattern === undefined)
    out.pattern = schema['x-multiline'] === true ? TEXT_PATTERN : LINE_PATTERN
  if (schema.properties)
    out.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, TSchema>).map(([k, v]) => [k, hygienic(v)]),
    )
  if (schema.patternProperties)
    out.patternProperties = Object.fromEntries(
      Object.entries(schema.patternProperties as Record<string, TSchema>).map(([k, v]) => [k, hygienic(v)]),
    )
  if (schema.items && !Array.isArray(schema.items)) out.items = hygienic(schema.items)
  if (Array.isArray(schema.anyOf)) out.anyOf = schema.anyOf.map(hygienic)
  if (Array.isArray(schema.allOf)) out.allOf = schema.allOf.map(hygienic)
  return out as unknown as TSchema
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>()

function checker(schema: TSchema): TypeCheck<TSchema> {
  let c = compiled.get(schema)
  if (!c) {
    registerFormats()
    c = TypeCompiler.Compile(hygienic(schema))
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

/** A given value as an error message quotes it: JSON (control characters escaped), cut short. */
export function quoteValue(value: unknown): string {
  const text = JSON.stringify(
    typeof value === 'string' && value.length > 60 ? `${value.slice(0, 60)}…` : value,
  )
  if (text === undefined) return String(value)
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}

/** The message of an enum refusal: names the value given, then the allowed ones. */
export function notOneOf(value: unknown, allowed: readonly unknown[]): string {
  // A member left out has no value to quote ("undefined is not one of" reads as a bug).
  if (value === undefined) return `is required: one of ${allowed.join(', ')}`
  return `${quoteValue(value)} is not one of: ${allowed.join(', ')}`
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`

const KIND_NAMES: Record<string, string> = {
  String: 'a string',
  Integer: 'an integer',
  Number: 'a number',
  Boolean: 'a boolean',
  Null: 'null',
  Object: 'an object',
  Record: 'an object',
  Array: 'an array',
}

function describe(schema: TSchema): string {
  if (schema[Kind] === 'Literal') return JSON.stringify(schema.const)
  return KIND_NAMES[schema[Kind] as string] ?? 'a valid value'
}

/** The JSON type a schema variant takes, to choose which variant of a union a value meant. */
function jsonType(value: unknown): string {
  if (value === null) return 'Null'
  if (Array.isArray(value)) return 'Array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'Integer' : 'Number'
  return typeof value === 'string' ? 'String' : typeof value === 'boolean' ? 'Boolean' : 'Object'
}

function matchesKind(schema: TSchema, value: unknown): boolean {
  const kind = schema[Kind] as string
  const type = jsonType(value)
  if (kind === 'Literal') return false
  if (kind === type) return true
  if (kind === 'Number' && type === 'Integer') return true
  return kind === 'Record' && type === 'Object'
}

function patternMessage(schema: TSchema, value: unknown): string {
  const text = typeof value === 'string' ? value : ''
  if (HAS_CONTROL.test(text))
    return schema.pattern === TEXT_PATTERN
      ? 'must not contain control characters (tab and newline are allowed)'
      : 'must not contain control characters'
  if (schema.pattern === NAME_PATTERN || schema.pattern === '\\S') return 'must not be blank'
  if (typeof schema['x-pattern-message'] === 'string') return schema['x-pattern-message']
  return `must match the pattern ${schema.pattern}`
}

/** One TypeBox error in words a client reads: "must be at least 1", `"x" is not one of: a, b`. */
function humanMessage(e: ValueError): string {
  const s = e.schema
  switch (e.type) {
    case ValueErrorType.ObjectAdditionalProperties:
      return 'is not a known member'
    case ValueErrorType.ObjectRequiredProperty:
      return 'is required'
    case ValueErrorType.StringPattern:
      return patternMessage(s, e.value)
    case ValueErrorType.StringFormat:
      if (typeof s['x-format-message'] === 'string') return s['x-format-message']
      return s.format === 'email' ? 'must be a valid email address' : `must be a valid ${s.format}`
    case ValueErrorType.StringMinLength:
      return s.minLength === 1 ? 'must not be empty' : `must be at least ${plural(s.minLength, 'character')}`
    case ValueErrorType.StringMaxLength:
      return `must be at most ${plural(s.maxLength, 'character')}`
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `must be at least ${s.minimum}`
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `must be at most ${s.maximum}`
    case ValueErrorType.IntegerExclusiveMinimum:
    case ValueErrorType.NumberExclusiveMinimum:
      return `must be greater than ${s.exclusiveMinimum}`
    case ValueErrorType.IntegerExclusiveMaximum:
    case ValueErrorType.NumberExclusiveMaximum:
      return `must be less than ${s.exclusiveMaximum}`
    case ValueErrorType.IntegerMultipleOf:
    case ValueErrorType.NumberMultipleOf:
      return `must be a multiple of ${s.multipleOf}`
    case ValueErrorType.ArrayMinItems:
      return `must have at least ${plural(s.minItems, 'item')}`
    case ValueErrorType.ArrayMaxItems:
      return `must have at most ${plural(s.maxItems, 'item')}`
    case ValueErrorType.ArrayUniqueItems:
      return 'must not repeat an item'
    case ValueErrorType.ObjectMinProperties:
      return `must have at least ${plural(s.minProperties, 'member')}`
    case ValueErrorType.ObjectMaxProperties:
      return `must have at most ${plural(s.maxProperties, 'member')}`
    case ValueErrorType.Literal:
      return `must be ${JSON.stringify(s.const)}`
    case ValueErrorType.Union: {
      const variants = (s.anyOf ?? []) as TSchema[]
      if (variants.length > 0 && variants.every((v) => v[Kind] === 'Literal'))
        return notOneOf(
          e.value,
          variants.map((v) => v.const),
        )
      // A value of the right type that breaks that variant's rule (a string too long for a
      // nullable string): say what that variant says.
      const i = variants.findIndex((v) => matchesKind(v, e.value))
      const first = i >= 0 ? e.errors[i]?.First() : undefined
      if (first?.path === e.path) return humanMessage(first)
      if (first) return `${fieldName(first.path.slice(e.path.length), '')} ${humanMessage(first)}`
      return `must be ${[...new Set(variants.map(describe))].join(' or ')}`
    }
    case ValueErrorType.String:
    case ValueErrorType.Integer:
    case ValueErrorType.Number:
    case ValueErrorType.Boolean:
    case ValueErrorType.Null:
    case ValueErrorType.Object:
    case ValueErrorType.Array:
      return `must be ${describe(s)}`
  }
  if (Array.isArray(s.enum)) return notOneOf(e.value, s.enum)
  return e.message
    .replace(/^Expected /, 'must be ')
    .replace('less or equal to', 'at most')
    .replace('greater or equal to', 'at least')
}

/** The literal members of an object variant (`type: "email"`): what tells variants apart. */
function literalMembers(schema: TSchema): [string, unknown][] {
  if (schema[Kind] !== 'Object') return []
  return Object.entries((schema.properties ?? {}) as Record<string, TSchema>)
    .filter(([, member]) => member[Kind] === 'Literal')
    .map(([key, member]) => [key, member.const])
}

/**
 * The variant of a union the value evidently means, or -1 when none is: the only variant of the
 * value's JSON type (the object of a Nullable(Object) given an object, the string or the object
 * of String|Object), and among several object variants the only one whose literal members
 * (`type`, `kind`) the value carries. A literal variant is never chosen (a union of literals is
 * an enum), nor is one of two variants of the same type that no literal tells apart.
 */
function evidentVariant(variants: TSchema[], value: unknown): number {
  let found = -1
  let count = 0
  for (let i = 0; i < variants.length; i++)
    if (matchesKind(variants[i] as TSchema, value)) {
      found = i
      count++
    }
  if (count <= 1 || !isPlainObject(value)) return count === 1 ? found : -1
  found = -1
  for (let i = 0; i < variants.length; i++) {
    const literals = literalMembers(variants[i] as TSchema)
    if (literals.length === 0 || !literals.every(([key, constant]) => value[key] === constant)) continue
    if (found >= 0) return -1
    found = i
  }
  return found
}

/**
 * An object given to a union of objects told apart by one literal member (`type`) whose value
 * names none of them: that member is the failure, with the values it may take.
 */
function unknownTag(variants: TSchema[], value: unknown): [key: string, message: string] | undefined {
  if (!isPlainObject(value) || variants.length < 2) return undefined
  const tags = variants.map(literalMembers)
  for (const [key] of tags[0] ?? []) {
    const allowed = tags.map((members) => members.find(([k]) => k === key))
    if (allowed.every((member) => member !== undefined))
      return [
        key,
        notOneOf(
          value[key],
          allowed.map((member) => member?.[1]),
        ),
      ]
  }
  return undefined
}

const pointerKey = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1')

/**
 * The failures one TypeBox error stands for, as [JSON pointer, message]. A union the value
 * failed reports every failure of the variant the value evidently means, each at its own path
 * (`settings.sending_window.days[0]` and `settings.sending_window.start`), instead of one
 * message at the union's path; with no evident variant it stays one message (humanMessage).
 */
function* failures(e: ValueError): Generator<[pointer: string, message: string]> {
  if (e.type === ValueErrorType.Union) {
    const variants = (e.schema.anyOf ?? []) as TSchema[]
    const i = evidentVariant(variants, e.value)
    if (i >= 0) {
      let reported = false
      for (const inner of e.errors[i] ?? []) {
        reported = true
        yield* failures(inner)
      }
      if (reported) return
    } else {
      const tag = unknownTag(variants, e.value)
      if (tag) return yield [`${e.path}/${pointerKey(tag[0])}`, tag[1]]
    }
  }
  yield [e.path, humanMessage(e)]
}

/** Why a string cannot be stored as given, or null. */
function stringProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'must not contain the character U+0000'
  if (!s.isWellFormed()) return 'must be valid Unicode (it holds an unpaired surrogate)'
  return null
}

/**
 * The first string or member name, anywhere in a value the schema accepted, that no store keeps
 * as given: U+0000 (PostgreSQL's text and jsonb refuse it) or an unpaired surrogate (jsonb
 * refuses its escape; a text column would get U+FFFD). Typed strings already refuse U+0000 (the
 * control characters); free-form members (custom fields, variables, rule values) and member
 * names are only checked here. [JSON pointer, message]; a bad name is reported at its object.
 */
function unstorable(value: unknown, pointer: string): [string, string] | null {
  if (typeof value === 'string') {
    const problem = stringProblem(value)
    return problem ? [pointer, problem] : null
  }
  if (typeof value !== 'object' || value === null) return null
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = unstorable(value[i], `${pointer}/${i}`)
      if (bad) return bad
    }
    return null
  }
  for (const [key, member] of Object.entries(value)) {
    const problem = stringProblem(key)
    if (problem) return [pointer, `has a member name that ${problem}`]
    const bad = unstorable(member, `${pointer}/${pointerKey(key)}`)
    if (bad) return bad
  }
  return null
}

/**
 * Every failing field, one message each (the first TypeBox reports for it). Only a value that
 * fails comes past Check: the errors are worked out for the 422, never on the happy path. A value
 * Check accepts is walked once more for strings no store keeps (unstorable).
 */
export function validate(schema: TSchema, value: unknown, root: string): FieldError[] {
  const c = checker(schema)
  if (c.Check(value)) {
    const bad = unstorable(value, '')
    return bad ? [{ field: fieldName(bad[0], root), message: bad[1] }] : []
  }
  const seen = new Map<string, string>()
  for (const e of c.Errors(value))
    for (const [pointer, message] of failures(e)) {
      const field = fieldName(pointer, root)
      if (!seen.has(field)) seen.set(field, message)
    }
  return [...seen].map(([field, message]) => ({ field, message }))
}

/**
 * Query strings arrive as text: convert numbers and booleans the schema asks for. Only exact
 * spellings convert ("2.5" stays text for an integer, so it fails validation instead of truncating).
 * An empty value is an absent one: clients build `?limit=20&cursor=` for a first page and send
 * `search=` from an empty search box, so `name=` means "not given" (an optional member takes its
 * default, a required one is reported missing). REST and the CLI's local check both come here.
 */
export function coerceQuery(schema: TSchema, query: Record<string, string>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, TSchema>
  const out: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(query)) {
    // A name the schema does not know stays, so an unknown parameter is still refused.
    if (value === '' && name in properties) continue
    out[name] = value
    const type = properties[name]?.type
    if ((type === 'integer' && /^-?\d+$/.test(value)) || (type === 'number' && /^-?\d+(\.\d+)?$/.test(value)))
      out[name] = Number(value)
    else if (type === 'boolean' && (value === 'true' || value === 'false')) out[name] = value === 'true'
  }
  return out
}
