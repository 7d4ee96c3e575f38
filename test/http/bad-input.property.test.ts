import { describe, expect, test } from 'bun:test'
import { Kind, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { sql } from 'drizzle-orm'
import fc from 'fast-check'
import { DIALECT } from '../../src/db/dialect'
import type { Operation } from '../../src/http/rest/define-operation'
import { operations } from '../../src/http/rest/registry'
import { createTestApp } from '../helpers/app'
import { rowsOf } from '../helpers/raw-sql'

// Property (issue 14): whatever bad input any operation gets — a body that is not an object, a
// member of the wrong type, a required member missing, an unknown member, a string or array
// over its limit, a control character, an id that is not one, a bad query parameter — the
// answer is a 4xx with the error envelope of DESIGN.md §4, never a 5xx, and nothing in the
// database changes. The requests are generated from the same schemas the server checks with
// (the operation registry: each verb's input, its route's body and query members).
//
// Each generated request carries exactly one defect that the schema alone refuses, on top of a
// body of the right shape, so the defect (not chance) is what must be refused.
// FC_SEED=<n> replays a failing run; FC_RUNS=<n> changes the number of requests per operation.

const RUNS = Number(process.env.FC_RUNS ?? 40)
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined

const t = await createTestApp()
const key = t.adminKey

// Records for path ids to name, so a refused request is shown to leave a real record alone.
const clientId = t.defaultClientId
const create = async (path: string, body: unknown, query = `?client_id=${clientId}`) => {
  const res = await t.call('POST', `${path}${query}`, { body })
  if (res.status !== 200) throw new Error(`seed ${path}: ${res.status} ${res.text}`)
  return res.body.data.id as string
}
const listId = await create('/api/v1/lists', { name: 'Seed list' })
const contactId = await create('/api/v1/contacts', {
  email: 'seed@acme.io',
  first_name: 'Seed',
  custom_fields: { plan: 'pro' },
  list_ids: [listId],
})
const templateId = await create('/api/v1/templates', { name: 'Seed', subject: 'Hi', body_text: 'Hello' })
const segmentId = await create('/api/v1/segments', {
  name: 'Seed',
  rule_groups: [{ match: 'all', rules: [{ field: 'email', operator: 'exists' }] }],
})
const campaignId = await create('/api/v1/campaigns', {
  name: 'Seed',
  list_id: listId,
  template_id: templateId,
})
await create('/api/v1/suppressions', { email: 'gone@acme.io' })
const spareKeyId = await create(
  '/api/v1/api-keys',
  { name: 'Spare', scopes: ['contacts:read'], client_id: clientId },
  '',
)

/** The record a path id names: a seeded one where there is one, else an unknown UUID. */
function pathValue(path: string, name: string): string {
  if (name === 'email') return 'gone@acme.io'
  if (name !== 'id') return crypto.randomUUID()
  const seeded: [string, string][] = [
    ['/api/v1/clients/{id}', clientId],
    ['/api/v1/api-keys/{id}', spareKeyId],
    ['/api/v1/contacts/{id}', contactId],
    ['/api/v1/lists/{id}', listId],
    ['/api/v1/segments/{id}', segmentId],
    ['/api/v1/templates/{id}', templateId],
    ['/api/v1/campaigns/{id}', campaignId],
  ]
  return seeded.find(([prefix]) => path.startsWith(prefix))?.[1] ?? crypto.randomUUID()
}

// ---- what the database holds, to compare before and after ----------------------------------

const tables = (
  await rowsOf<{ name: string }>(
    t,
    DIALECT === 'postgres'
      ? sql`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()`
      : sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`,
  )
).map((r) => r.name)

// Rows are compared as a sorted list: PostgreSQL gives no fixed order without ORDER BY. A key's
// last_used_at is left out: any authenticated request writes it once a minute, and a slow run
// (the file takes over a minute on a loaded machine) crosses that minute between two snapshots.
// So are the shared rate buckets (PostgreSQL): every request to a limited door takes a token
// before its input is read, which is the limit working, not data changed.
const BOOKKEEPING = new Set(['rate_buckets'])
async function snapshot(): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const name of tables) {
    if (BOOKKEEPING.has(name)) continue
    const rows = (await rowsOf<Record<string, unknown>>(t, sql.raw(`SELECT * FROM "${name}"`)))
      .map((r) =>
        JSON.stringify(r, (k, v) =>
          v instanceof Uint8Array ? [...v] : name === 'api_keys' && k === 'last_used_at' ? null : v,
        ),
      )
      .sort()
    out[name] = `${rows.length}:${Bun.hash(JSON.stringify(rows))}`
  }
  return out
}

// ---- values of the right shape, from a schema ---------------------------------------------

const isIdString = (s: TSchema) =>
  s[Kind] === 'String' &&
  (s.format === 'uuid' || (typeof s.pattern === 'string' && s.pattern.includes('[0-9a-fA-F]{8}')))

function shaped(s: TSchema): fc.Arbitrary<unknown> {
  switch (s[Kind]) {
    case 'Literal':
      return fc.constant(s.const)
    case 'Union':
      return fc.oneof(...(s.anyOf as TSchema[]).map(shaped))
    case 'String': {
      if (isIdString(s)) return fc.uuid()
      if (s.format === 'email') return fc.constantFrom('a@example.com', 'b.c@example.org')
      if (s.format === 'date-time') return fc.constant('2030-01-01T00:00:00Z')
      if (s.format === 'date') return fc.constant('2030-01-01')
      if (s.format === 'uri') return fc.constant('https://example.com/x')
      const min = Math.max(s.minLength ?? 0, s.pattern ? 1 : 0)
      return fc
        .string({ minLength: min, maxLength: Math.min(s.maxLength ?? 20, 20) })
        .map((v) => (s.pattern && !/\S/.test(v) ? `x${v}`.slice(0, s.maxLength ?? 20) : v))
    }
    case 'Integer':
      return fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 1000 })
    case 'Number':
      return fc.double({ min: s.minimum ?? -1000, max: s.maximum ?? 1000, noNaN: true })
    case 'Boolean':
      return fc.boolean()
    case 'Null':
      return fc.constant(null)
    case 'Array':
      return fc.array(shaped(s.items), {
        minLength: s.minItems ?? 0,
        maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 2, 2)),
      })
    case 'Object': {
      const props = s.properties as Record<string, TSchema>
      const required = (s.required as string[] | undefined) ?? []
      return fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, shaped(v)])), {
        requiredKeys: required,
      })
    }
    case 'Record':
      return fc.constant({})
    default:
      return fc.constant('x')
  }
}

// ---- defects ------------------------------------------------------------------------------

interface Request {
  method: string
  path: string
  query: Record<string, string>
  /** A JSON text, or a raw upload. */
  body?: string
  contentType?: string
  defect: string
}

const WRONG_TYPED: unknown[] = [1.5, 7, -1, 'text', true, null, [], {}, [1, 'a']]
const CONTROLS = ['\u0000', '\u0001', '\u0008', '\u001b', '\u007f', '\u0085', '\u000b']

/** The members of an object schema, each with the defects its schema refuses for sure. */
function defectsOf(
  props: Record<string, TSchema>,
  required: string[],
): [string, fc.Arbitrary<[string, unknown]>][] {
  const out: [string, fc.Arbitrary<[string, unknown]>][] = []
  for (const [name, s] of Object.entries(props)) {
    const wrong = WRONG_TYPED.filter((v) => !Value.Check(s, v))
    if (wrong.length) out.push([`${name}: wrong type`, fc.constantFrom(...wrong).map((v) => [name, v])])
    const strings = stringsOf(s)
    if (strings.length > 0) {
      out.push([
        `${name}: control character`,
        fc
          .tuple(fc.string({ maxLength: 5 }), fc.constantFrom(...CONTROLS), fc.string({ maxLength: 5 }))
          .map(([a, c, b]) => [name, `${a}${c}${b}`]),
      ])
      const max = Math.max(...strings.map((x) => x.maxLength ?? 0))
      if (strings.every((x) => x.maxLength !== undefined))
        out.push([`${name}: too long`, fc.constant([name, 'x'.repeat(max + 1)])])
      if (strings.some(isIdString))
        out.push([
          `${name}: not an id`,
          fc.constantFrom('garbage', 'lst_123', `${crypto.randomUUID()}x`).map((v) => [name, v]),
        ])
    }
    const literals = literalsOf(s)
    if (literals.length > 0)
      out.push([
        `${name}: not one of`,
        fc
          .constantFrom('zzz', 'SUBSCRIBED', ' all')
          .filter((v) => !literals.includes(v))
          .map((v) => [name, v]),
      ])
    const array = arrayOf(s)
    if (array?.maxItems !== undefined && array.maxItems <= 10_001)
      out.push([
        `${name}: too many items`,
        fc.constant([name, Array.from({ length: array.maxItems + 1 }, () => crypto.randomUUID())]),
      ])
    if (array && isIdString(array.items))
      out.push([`${name}: an item not an id`, fc.constant([name, ['garbage']])])
  }
  for (const name of required) out.push([`${name}: missing`, fc.constant([name, undefined])])
  return out
}

const variants = (s: TSchema): TSchema[] =>
  s[Kind] === 'Union' ? (s.anyOf as TSchema[]).flatMap(variants) : [s]
const stringsOf = (s: TSchema) => variants(s).filter((v) => v[Kind] === 'String')
const arrayOf = (s: TSchema) => variants(s).find((v) => v[Kind] === 'Array')
const literalsOf = (s: TSchema) =>
  variants(s)
    .filter((v) => v[Kind] === 'Literal')
    .map((v) => v.const)

/** Fills the path, then picks one defect and builds the request around it. */
function requests(o: Operation): fc.Arbitrary<Request> | null {
  const names = [...o.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
  const path = (bad?: string) =>
    o.path.replace(/\{(\w+)\}/g, (_m, n: string) =>
      encodeURIComponent(bad !== undefined && n === names[0] ? bad : pathValue(o.path, n)),
    )
  const bodySchema = o.body
  const querySchema = o.query
  const body = bodySchema ? shaped(bodySchema) : fc.constant(undefined)
  const query = querySchema ? (shaped(querySchema) as fc.Arbitrary<Record<string, unknown>>) : fc.constant({})
  const asQuery = (q: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(q)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, String(v)]),
    )
  const stream = o.stream
  const upload = stream?.contentTypes.includes('text/csv')
    ? { body: 'email\nfuzz@acme.io\n', contentType: 'text/csv' }
    : { body: 'From: a@b.io\r\nTo: c@d.io\r\nSubject: x\r\n\r\nhi\r\n', contentType: 'message/rfc822' }
  const base = (defect: string, b: unknown, q: Record<string, unknown>): Request => ({
    method: o.method,
    path: path(),
    query: asQuery(q),
    ...(stream
      ? upload
      : b === undefined
        ? {}
        : { body: JSON.stringify(b), contentType: 'application/json' }),
    defect,
  })

  // Member defects weigh more than the request-wide ones, so every member is tried.
  const choices: fc.WeightedArbitrary<Request>[] = []
  const add = (arbitrary: fc.Arbitrary<Request>, weight = 1) => {
    choices.push({ arbitrary, weight })
  }
  // Body defects.
  if (bodySchema) {
    const props = bodySchema.properties as Record<string, TSchema>
    const required = (bodySchema.required as string[] | undefined) ?? []
    add(
      fc
        .tuple(fc.constantFrom<unknown>([], 'text', 3, null, true, [{}]), query)
        .map(([b, q]) => base(`body ${JSON.stringify(b)}`, b, q)),
    )
    for (const [defect, arb] of defectsOf(props, required))
      add(
        fc.tuple(body, query, arb).map(([b, q, [name, v]]) => {
          const out = { ...(b as Record<string, unknown>) }
          if (v === undefined) delete out[name]
          else out[name] = v
          return base(`body ${defect}`, out, q)
        }),
        3,
      )
  }
  // An unknown body member (on operations that take no body too); not for uploads.
  if (!stream && o.method !== 'GET')
    add(
      fc
        .tuple(body, query, fc.constantFrom('zz_unknown', 'constructor', 'toString', 'Name', 'id'))
        .map(([b, q, name]) =>
          base(`body unknown member ${name}`, { ...((b as object) ?? {}), [name]: 1 }, q),
        ),
    )
  // Query defects.
  if (querySchema) {
    const props = querySchema.properties as Record<string, TSchema>
    for (const [defect, arb] of defectsOf(props, []))
      add(
        fc
          .tuple(body, query, arb)
          // An empty value is the parameter left out (coerceQuery), not a defect.
          .filter(([, , [, v]]) => v !== '')
          .map(([b, q, [name, v]]) => {
            // A query string is text: only defects that stay defects as text.
            const text = typeof v === 'string' ? v : JSON.stringify(v)
            return base(`query ${defect}`, b, { ...q, [name]: text })
          }),
        3,
      )
    add(
      fc
        .tuple(body, query, fc.constantFrom('0', '-1', '201', '1.5', 'abc'))
        .map(([b, q, v]) => base(`query limit=${v}`, b, { ...q, limit: v })),
    )
  }
  // Operations that take a query string refuse unknown parameters; the others ignore the query
  // string (cache busters, tracking parameters) as they always have.
  if (querySchema)
    add(fc.tuple(body, query).map(([b, q]) => base('query unknown parameter', b, { ...q, zz_unknown: '1' })))
  // A path id that names nothing this form can (404).
  if (names.length > 0 && !o.rawParams?.includes(names[0]!))
    add(
      fc
        .tuple(
          body,
          query,
          fc.constantFrom('garbage', 'cmp_123', '0', "1' OR '1'='1", `${crypto.randomUUID()}0`),
        )
        .map(([b, q, bad]) => ({ ...base(`path id ${bad}`, b, q), path: path(bad) })),
    )
  // An upload of a type the operation does not take.
  if (stream)
    add(
      query.map((q) => ({
        ...base('upload as JSON', undefined, q),
        body: '{}',
        contentType: 'application/json',
      })),
    )
  // An operation that takes nothing at all (health, discovery documents) has no bad input.
  return choices.length > 0 ? fc.oneof(...choices) : null
}

// Query defects whose text form is still valid (a wrong-typed 7 for a string member becomes
// "7") are not defects; such members are strings the schema takes as they come.
function stillValid(o: Operation, r: Request): boolean {
  if (!r.defect.startsWith('query ') || !o.query) return false
  if (!r.defect.endsWith('wrong type')) return false
  const name = r.defect.slice('query '.length).split(':')[0]!
  const s = (o.query.properties as Record<string, TSchema>)[name]!
  return stringsOf(s).length > 0 && literalsOf(s).length === 0 && !stringsOf(s).some(isIdString)
}

// ---- the property -------------------------------------------------------------------------

await t.call('GET', '/api/v1/clients') // the key's last_used_at is written now, not during the run

describe('bad input never changes data and always gets a 4xx with the error envelope', () => {
  let requestCount = 0
  for (const o of operations) {
    const arbitrary = requests(o)
    if (!arbitrary) continue
    test(`${o.method} ${o.path}`, async () => {
      // Per operation, so one failure does not show up again in every later operation.
      const before = await snapshot()
      await fc.assert(
        fc.asyncProperty(arbitrary, async (r) => {
          if (stillValid(o, r)) return
          requestCount++
          const qs = new URLSearchParams(r.query).toString()
          const res = await t.call(r.method, r.path + (qs ? `?${qs}` : ''), {
            key,
            raw: r.body,
            headers: r.contentType ? { 'content-type': r.contentType } : {},
          })
          if (process.env.FC_LOG)
            console.log(
              'FC',
              res.status,
              res.body?.error?.code,
              r.defect.replace(/^(body|query) [^:]*: /, '$1 '),
            )
          const where = `${r.method} ${r.path} (${r.defect}) → ${res.status} ${res.text.slice(0, 300)}`
          expect(res.status, where).toBeGreaterThanOrEqual(400)
          expect(res.status, where).toBeLessThan(500)
          const error = res.body?.error
          expect(error, where).toBeObject()
          expect(typeof error.code, where).toBe('string')
          expect(typeof error.message, where).toBe('string')
          expect(error.request_id, where).toBe(res.headers.get('x-request-id'))
          if (res.status === 422) {
            expect(Array.isArray(error.details), where).toBe(true)
            for (const d of error.details) {
              expect(typeof d.field, where).toBe('string')
              expect(typeof d.message, where).toBe('string')
            }
          }
          expect(await snapshot(), where).toEqual(before)
        }),
        { numRuns: RUNS, seed: SEED },
      )
    }, 60_000)
  }

  test('the run covered every operation', () => {
    expect(requestCount).toBeGreaterThan(operations.length * RUNS * 0.8)
  })
})
