import type { TSchema } from '@sinclair/typebox'
import { SCOPES } from '../../lib/scopes'
import { EVENT_TYPES } from '../../services/events/record'
import { API_VERSION } from '../../version'
import { takesClientIdFromBody } from '../rest/client-id-param'
import { isMutating, type Operation } from '../rest/define-operation'
import { errorResponses, errorSchemas, HEADERS, header, responseHeaders } from './errors'
import { dedupe, ID_PATTERN, type Json, ref, SchemaRegistry } from './schemas'
import { webhookEntries } from './webhooks'

// The OpenAPI document is generated from the operation registry: the same declarations that
// route requests and check scopes. Never hand-written. Named schemas (resources, inputs, errors)
// are emitted once under components.schemas and referenced, so generated SDKs name their types.

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
  if (takesClientIdFromBody(o))
    return [
      {
        name: 'client_id',
        in: 'query',
        required: false,
        allowEmptyValue: true,
        description:
          'The same as the body member client_id (either place; when both are given they must agree).',
        schema: { type: 'string', pattern: ID_PATTERN },
      },
    ]
  if (!o.query) return []
  const properties = (o.query.properties ?? {}) as Record<string, TSchema>
  const required = new Set((o.query.required as string[] | undefined) ?? [])
  return Object.entries(properties).map(([name, s]) => {
    const schema = registry.toJson(o.documented?.[name] ?? s) as Json
    // Ids in the query string are parsed like path ids: a UUID or a prefixed id.
    if (name.endsWith('_id') && schema.type === 'string' && !schema.pattern && !schema.format)
      schema.pattern = ID_PATTERN
    const parameter: Json = { name, in: 'query', required: required.has(name), schema }
    // An empty value of an optional parameter is the same as leaving it out (coerceQuery): the
    // schema is checked only against a value that is there.
    if (!required.has(name)) parameter.allowEmptyValue = true
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

/** The document's info object, alone: /docs's page reads it without building the whole document. */
export function apiInfo(): Json {
  return {
    title: 'Herald API',
    version: API_VERSION,
    description:
      'Self-hosted marketing and sales engagement. Authenticate with an API key (`Authorization: Bearer hrld_…` or `X-Api-Key`). ' +
      `Scopes: ${SCOPES.join(', ')}; admin:* grants all. ` +
      'Every response carries X-Request-Id; errors answer `{"error": {code, message, request_id, details?}}`. ' +
      'An optional query parameter sent empty (`?limit=20&cursor=`) is the same as leaving it out. ' +
      'A known path called with a method it does not serve answers 405 METHOD_NOT_ALLOWED with an Allow header.',
    license: LICENSE,
  }
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
    info: apiInfo(),
    servers: [{ url: publicUrl, description: 'This Herald instance (HERALD_PUBLIC_URL)' }],
    tags: tags.map((name) => ({ name, description: TAGS[name] ?? name })),
    paths,
    webhooks: webhookEntries(registry, EVENT_TYPES),
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
