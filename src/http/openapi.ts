import type { TSchema } from '@sinclair/typebox'
import type { ErrorCode } from '../errors'
import { SCOPES } from '../lib/scopes'
import { API_VERSION } from '../version'
import { isMutating, type Operation } from './operation'
import { ERROR_STATUS } from './respond'

// The OpenAPI document is generated from the operation registry: the same declarations that
// route requests and check scopes. Never hand-written. Named schemas (resources, inputs, errors)
// are emitted once under components.schemas and referenced, so generated SDKs name their types.

type Json = Record<string, unknown>

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

/**
 * The project publishes no license (no LICENSE file; package.json is private): an SPDX
 * `LicenseRef-` names a license of its own, which is what that is.
 */
const LICENSE = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' }

const TAGS: Record<string, string> = {
  System: 'Health of the instance (no credential).',
  Discovery: 'Metadata documents for OAuth clients and agents (no credential).',
  Clients: 'Tenants (workspaces). Every record belongs to one; platform-wide keys pass client_id.',
  'API keys': 'Credentials: platform-wide or tenant-scoped, with scopes and a rate-limit tier (admin:*).',
  Contacts: 'People to reach: create, update, search, erase; CSV import and export.',
  Lists: 'Static lists of contacts and their membership.',
  Segments: 'Dynamic audiences defined by rules over contact fields, lists and activity.',
  Suppressions: 'Addresses that must never receive mail (unsubscribes, hard bounces, complaints, manual).',
  Templates: 'Liquid templates for subject and bodies, with preview.',
  Senders: 'Sending identities (from address and name); verified through their domain.',
  Domains: 'Sending domains: DKIM key generation and DNS verification (DKIM, SPF, DMARC).',
  Campaigns:
    'One-off sends to a list or segment: draft → scheduled/sending → sent, with pause, cancel and stats.',
  Messages: 'The outbox: every message queued or sent, and one-off transactional sends.',
  Webhooks: 'Signed event deliveries (Standard Webhooks), with test, secret rotation and delivery log.',
  Inbound: 'Inbound mail handed to Herald: bounces, complaints, unsubscribes and replies.',
  Replies: 'Replies received to messages Herald sent.',
}

// ---------------------------------------------------------------------------------------------
// Schemas: TypeBox → JSON Schema, names → components, free-form maps → additionalProperties.

class SchemaRegistry {
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
function canonical(value: unknown): string {
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
function dedupe(doc: Json, schemas: Record<string, Json>): void {
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

// ---------------------------------------------------------------------------------------------
// Errors and headers (DESIGN.md §4, §5, §6).

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/** Codes whose `details` have a documented shape; the rest carry none. */
const DETAILED: readonly ErrorCode[] = ['VALIDATION_FAILED', 'INVALID_STATE', 'CONFLICT', 'FORBIDDEN']

function errorEnvelope(description: string, code: Json, details?: { schema: Json; required: boolean }): Json {
  return {
    type: 'object',
    description,
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message', 'request_id', ...(details?.required ? ['details'] : [])],
        properties: {
          code,
          message: {
            type: 'string',
            description: 'For people; says what failed and, where it helps, what to do',
          },
          request_id: { type: 'string', format: 'uuid', description: 'The X-Request-Id of the response' },
          ...(details ? { details: details.schema } : {}),
        },
      },
    },
  }
}

function errorSchemas(): Record<string, Json> {
  const plainCodes = (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((c) => !DETAILED.includes(c))
  return {
    FieldError: {
      type: 'object',
      required: ['field', 'message'],
      properties: {
        field: {
          type: 'string',
          description:
            'The member as the client wrote it: `email`, `rule_groups[1].rules[0].operator`, `client_id`',
        },
        message: { type: 'string' },
      },
    },
    Error: errorEnvelope(
      'The error body: every failure answers it (DESIGN §4); these codes carry no details.',
      {
        type: 'string',
        enum: plainCodes,
      },
    ),
    ValidationError: errorEnvelope(
      'Schema or semantic validation failed (422); details lists every failing member.',
      { type: 'string', const: 'VALIDATION_FAILED' },
      { schema: { type: 'array', minItems: 1, items: ref('FieldError') }, required: true },
    ),
    InvalidStateError: errorEnvelope(
      'The transition is not allowed in the record’s current state (409).',
      { type: 'string', const: 'INVALID_STATE' },
      {
        schema: {
          type: 'object',
          required: ['status', 'allowed_from'],
          properties: {
            status: { type: 'string', description: 'The current state' },
            allowed_from: {
              type: 'array',
              items: { type: 'string' },
              description: 'States the operation accepts',
            },
          },
        },
        required: true,
      },
    ),
    ConflictError: errorEnvelope(
      'A uniqueness rule was broken (409), e.g. a contact email that already exists in the client.',
      { type: 'string', const: 'CONFLICT' },
      {
        schema: {
          type: 'object',
          required: ['existing_id'],
          properties: {
            existing_id: { type: 'string', format: 'uuid', description: 'The record already there' },
          },
        },
        required: true,
      },
    ),
    ForbiddenError: errorEnvelope(
      'The credential may not do this (403): a missing scope, a tenant key on a platform-wide operation, a suspended client.',
      { type: 'string', const: 'FORBIDDEN' },
      {
        schema: {
          type: 'object',
          properties: {
            required_scope: {
              type: 'string',
              description: 'The scope (or "platform-wide key") the operation needs',
            },
            role: { type: 'string', description: 'The portal user’s role, when that is what is missing' },
          },
        },
        required: false,
      },
    ),
  }
}

const HEADERS: Record<string, Json> = {
  'X-Request-Id': {
    description:
      'The request’s own X-Request-Id when it is a UUID, else a new UUIDv7; equals error.request_id',
    required: true,
    schema: { type: 'string', format: 'uuid' },
  },
  'RateLimit-Limit': {
    description: 'The key’s bucket size (burst); absent for the unlimited tier',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Remaining': {
    description: 'Whole requests left in the bucket; absent for the unlimited tier',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Reset': {
    description: 'Whole seconds (rounded up) until the bucket is full; absent for the unlimited tier',
    schema: { type: 'integer', minimum: 0 },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  'WWW-Authenticate': {
    description:
      '`Bearer resource_metadata="{public_url}/.well-known/oauth-protected-resource"`, with `error="invalid_token"` when a credential was presented',
    required: true,
    schema: { type: 'string' },
  },
  'WWW-Authenticate-Scope': {
    description: 'For OAuth tokens: `Bearer error="insufficient_scope", scope="<scope>"`',
    schema: { type: 'string' },
  },
  Allow: { description: 'The methods the path serves', required: true, schema: { type: 'string' } },
  'Idempotency-Key': {
    description: 'The request’s Idempotency-Key, echoed when one was sent',
    schema: { type: 'string', maxLength: 255 },
  },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
}

const header = (name: string) => ({ $ref: `#/components/headers/${name}` })

function responseHeaders(o: Operation, status: string): Json {
  const names = ['X-Request-Id']
  const authenticated = o.auth !== 'none'
  if (authenticated && status !== '401' && status !== '503')
    names.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset')
  if (status === '429') names.push('Retry-After')
  if (authenticated && isMutating(o) && ['200', '404', '409', '422'].includes(status))
    names.push('Idempotency-Key', 'Idempotent-Replayed')
  const headers: Json = Object.fromEntries(names.map((n) => [n, header(n)]))
  if (status === '401') headers['WWW-Authenticate'] = header('WWW-Authenticate')
  if (status === '403') headers['WWW-Authenticate'] = header('WWW-Authenticate-Scope')
  return headers
}

const ERRORS: Record<string, string> = {
  '400': 'Body is not valid JSON (INVALID_REQUEST)',
  '401': 'Missing or invalid credential (UNAUTHORIZED)',
  '403': 'Credential lacks the required scope (FORBIDDEN; details.required_scope)',
  '404': 'No such record for this caller (NOT_FOUND)',
  '409': 'Invalid state (INVALID_STATE), uniqueness conflict (CONFLICT), or idempotency key in use',
  '413': 'Body over the limit (PAYLOAD_TOO_LARGE)',
  '415': 'Body of a media type the operation does not take (UNSUPPORTED_MEDIA_TYPE)',
  '422':
    'Validation failed (VALIDATION_FAILED; details lists every failing member) or idempotency key reused',
  '429': 'Rate limited; see Retry-After (RATE_LIMITED)',
  '500': 'Internal error, logged with the request id (INTERNAL_ERROR)',
  '503': 'Shutting down (UNAVAILABLE)',
}

function errorSchema(o: Operation, status: string): Json {
  if (status === '403') return ref('ForbiddenError')
  if (status === '409') return { anyOf: [ref('InvalidStateError'), ref('ConflictError'), ref('Error')] }
  if (status === '422')
    return isMutating(o) && o.auth !== 'none'
      ? { anyOf: [ref('ValidationError'), ref('Error')] } // IDEMPOTENCY_KEY_REUSED
      : ref('ValidationError')
  return ref('Error')
}

const ERROR_NAMES: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '409': 'Conflict',
  '413': 'PayloadTooLarge',
  '415': 'UnsupportedMediaType',
  '422': 'ValidationFailed',
  '429': 'RateLimited',
  '500': 'InternalError',
  '503': 'Unavailable',
}

/**
 * The error responses of an operation, as `$ref`s to components.responses: one per status and
 * kind of operation (public; authenticated, with RateLimit headers; authenticated and mutating,
 * with the Idempotency-Key headers too).
 */
function errorResponses(o: Operation, responses: Record<string, Json>): Json {
  const codes = ['500', '503']
  if (o.auth !== 'none') codes.push('401', '403', '429')
  if (o.path.includes('{')) codes.push('404')
  if (o.query || o.body || o.documented) codes.push('422')
  if (isMutating(o)) codes.push('409', '413')
  if (o.body) codes.push('400', '415')
  if (o.stream) codes.push('415')
  return Object.fromEntries(
    [...new Set(codes)].sort().map((c) => {
      const headers = responseHeaders(o, c)
      const response = {
        description: ERRORS[c],
        headers,
        content: { 'application/json': { schema: errorSchema(o, c) } },
      }
      const suffix =
        'Idempotency-Key' in headers
          ? 'Idempotent'
          : 'RateLimit-Limit' in headers || c === '401' || c === '503'
            ? ''
            : 'Public'
      const name = `${ERROR_NAMES[c]}${suffix}`
      responses[name] ??= response
      if (canonical(responses[name]) !== canonical(response))
        throw new Error(`OpenAPI: two different ${c} responses are named ${name}`)
      return [c, { $ref: `#/components/responses/${name}` }]
    }),
  )
}

// ---------------------------------------------------------------------------------------------
// Operations.

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

/** `createContact` → ContactInput, `updateContact` → ContactPatch, `launchCampaign` → LaunchCampaignInput. */
function bodyName(o: Operation): string {
  const create = /^create([A-Z]\w*)$/.exec(o.id)
  if (create) return `${create[1]}Input`
  const update = /^update([A-Z]\w*)$/.exec(o.id)
  if (update) return `${update[1]}Patch`
  return `${pascal(o.id)}Input`
}

function clientIdDescription(o: Operation): string {
  if (o.method === 'GET')
    return 'Platform-wide keys: optional filter, one client’s records only (UUID or cli_… id). Tenant-scoped keys: ignored (always their own client).'
  return 'Platform-wide keys: required, the client (workspace) that owns the new record (UUID or cli_… id); missing → 422. Tenant-scoped keys: ignored (always their own client).'
}

function queryParameters(o: Operation, registry: SchemaRegistry): Json[] {
  if (!o.query) return []
  const properties = (o.query.properties ?? {}) as Record<string, TSchema>
  const required = new Set((o.query.required as string[] | undefined) ?? [])
  return Object.entries(properties).map(([name, s]) => {
    const schema = registry.toJson(o.documented?.[name] ?? s) as Json
    // Ids in the query string are parsed like path ids: a UUID or a prefixed id.
    if (name.endsWith('_id') && schema.type === 'string' && !schema.pattern && !schema.format)
      schema.pattern = ID_PATTERN
    const parameter: Json = { name, in: 'query', required: required.has(name), schema }
    if (name === 'client_id') parameter.description = clientIdDescription(o)
    return parameter
  })
}

function requestBody(o: Operation, registry: SchemaRegistry): Json | undefined {
  if (o.body) {
    const name = bodyName(o)
    registry.add(name, o.body, () => {
      const schema = registry.toJson(o.body) as Json
      const properties = schema.properties as Json
      for (const [member, documented] of Object.entries(o.documented ?? {}))
        if (member in properties) properties[member] = registry.toJson(documented)
      return schema
    })
    const media: Json = { schema: ref(name) }
    if (o.example?.request !== undefined) media.example = o.example.request
    return { required: true, content: { 'application/json': media } }
  }
  // Streamed bodies (CSV imports, raw MIME) are described by their media types, read as bytes.
  if (o.stream)
    return {
      required: true,
      description: `Streamed; at most ${o.stream.limit} bytes`,
      content: Object.fromEntries(
        o.stream.contentTypes.map((type) => [
          type,
          type.startsWith('multipart/')
            ? {
                schema: {
                  type: 'object',
                  required: ['file'],
                  properties: { file: { type: 'string', contentMediaType: 'text/csv' } },
                },
              }
            : { schema: { type: 'string', contentMediaType: type } },
        ]),
      ),
    }
  return undefined
}

function okResponse(o: Operation, registry: SchemaRegistry): Json {
  const headers = responseHeaders(o, '200')
  if (o.answer === 'download') {
    const type = o.mediaType ?? 'application/octet-stream'
    return {
      description: `The file (${type}), streamed, with Content-Disposition: attachment`,
      headers: {
        ...headers,
        'Content-Disposition': { description: '`attachment; filename="…"`', schema: { type: 'string' } },
      },
      content: { [type]: { schema: { type: 'string', contentMediaType: type } } },
    }
  }
  const media: Json = { schema: registry.toJson(o.response) }
  if (o.example?.response !== undefined) media.example = o.example.response
  return { description: 'OK', headers, content: { 'application/json': media } }
}

function operationObject(o: Operation, registry: SchemaRegistry, responses: Record<string, Json>): Json {
  const parameters: Json[] = [...o.path.matchAll(/\{(\w+)\}/g)].map((m) =>
    o.rawParams?.includes(m[1]!)
      ? { name: m[1], in: 'path', required: true, schema: { type: 'string' } }
      : {
          name: m[1],
          in: 'path',
          required: true,
          description: 'UUID or prefixed id (cmp_…); anything else is 404',
          schema: { type: 'string', pattern: ID_PATTERN },
        },
  )
  parameters.push(...queryParameters(o, registry))
  if (isMutating(o) && o.auth !== 'none')
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Retries with the same key return the first result (24 h); 1 to 255 characters',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    })
  const scopes = o.auth === 'none' ? null : o.auth === 'any' ? [] : [o.auth]
  const operation: Json = {
    operationId: o.id,
    tags: [o.tag],
    summary: o.summary,
    ...(o.description ? { description: o.description } : {}),
    parameters,
  }
  const body = requestBody(o, registry)
  if (body) operation.requestBody = body
  operation.responses = { '200': okResponse(o, registry), ...errorResponses(o, responses) }
  operation.security = scopes === null ? [] : [{ apiKey: scopes }, { bearer: scopes }]
  operation['x-required-scope'] = o.auth === 'none' ? null : o.auth
  return operation
}

export function buildOpenApiDocument(operations: readonly Operation[], publicUrl: string): Json {
  const registry = new SchemaRegistry()
  for (const [name, schema] of Object.entries(errorSchemas())) registry.add(name, schema, () => schema)
  const responses: Record<string, Json> = {
    MethodNotAllowed: {
      description: 'A known path called with a method it does not serve (METHOD_NOT_ALLOWED)',
      headers: { 'X-Request-Id': header('X-Request-Id'), Allow: header('Allow') },
      content: { 'application/json': { schema: ref('Error') } },
    },
  }
  const paths: Record<string, Json> = {}
  const tags: string[] = []
  for (const o of operations) {
    paths[o.path] ??= {}
    paths[o.path]![o.method.toLowerCase()] = operationObject(o, registry, responses)
    if (!tags.includes(o.tag)) tags.push(o.tag)
  }
  const doc: Json = {
    openapi: '3.1.0',
    info: {
      title: 'Herald API',
      version: API_VERSION,
      description:
        'Self-hosted marketing and sales engagement. Authenticate with an API key (`Authorization: Bearer hrld_…` or `X-Api-Key`). ' +
        `Scopes: ${SCOPES.join(', ')}; admin:* grants all. ` +
        'Every response carries X-Request-Id; errors answer `{"error": {code, message, request_id, details?}}`. ' +
        'A known path called with a method it does not serve answers 405 METHOD_NOT_ALLOWED with an Allow header.',
      license: LICENSE,
    },
    servers: [{ url: publicUrl, description: 'This Herald instance (HERALD_PUBLIC_URL)' }],
    tags: tags.map((name) => ({ name, description: TAGS[name] ?? name })),
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An API key (hrld_…)' },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (hrld_…) or an OAuth access token',
        },
      },
      schemas: registry.schemas,
      headers: HEADERS,
      responses,
    },
  }
  dedupe(doc, registry.schemas)
  return doc
}
