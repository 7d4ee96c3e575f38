import type { TSchema } from '@sinclair/typebox'
import { SCOPES } from '../lib/scopes'
import { ErrorBody } from '../services/verbs/schemas'
import { API_VERSION } from '../version'
import { isMutating, type Operation } from './operation'

// The OpenAPI document is generated from the operation registry: the same declarations that
// route requests and check scopes. Never hand-written.

type Json = Record<string, unknown>

/** TypeBox schemas carry symbol keys and `Optional` markers; JSON round-trip leaves plain JSON Schema. */
const plain = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema))

const ERRORS: Record<string, string> = {
  '400': 'Body is not valid JSON (INVALID_REQUEST)',
  '401': 'Missing or invalid credential (UNAUTHORIZED)',
  '403': 'Credential lacks the required scope (FORBIDDEN)',
  '404': 'No such record for this caller (NOT_FOUND)',
  '409': 'Conflict, invalid state, or idempotency key in use',
  '413': 'Body over 1 MiB (PAYLOAD_TOO_LARGE)',
  '415': 'Body is not JSON (UNSUPPORTED_MEDIA_TYPE)',
  '422': 'Validation failed; details lists every failing field',
  '429': 'Rate limited; see Retry-After (RATE_LIMITED)',
  '500': 'Internal error (INTERNAL_ERROR)',
  '503': 'Shutting down (UNAVAILABLE)',
}

function errorResponses(o: Operation): Json {
  const codes = ['500', '503']
  if (o.auth !== 'none') codes.push('401', '403', '429')
  if (o.path.includes('{')) codes.push('404')
  if (o.query || o.body) codes.push('422')
  if (isMutating(o)) codes.push('409', '413')
  if (o.body) codes.push('400', '415')
  if (o.stream) codes.push('415')
  const ref = { $ref: '#/components/responses/Error' }
  return Object.fromEntries(
    codes
      .sort()
      .map((c) => [c, { ...ref, description: ERRORS[c] }])
      .map(([c, r]) => [c, r]),
  )
}

function queryParameters(schema: TSchema | undefined): Json[] {
  if (!schema) return []
  const properties = (schema.properties ?? {}) as Record<string, TSchema>
  const required = new Set((schema.required as string[] | undefined) ?? [])
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: plain(s),
  }))
}

function operationObject(o: Operation): Json {
  const parameters: Json[] = [...o.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: o.rawParams?.includes(m[1]!)
      ? { type: 'string' }
      : { type: 'string', description: 'UUID or prefixed id' },
  }))
  parameters.push(...queryParameters(o.query))
  if (isMutating(o) && o.auth !== 'none')
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Retries with the same key return the first result (24 h)',
      schema: { type: 'string', maxLength: 255 },
    })
  const scopes = o.auth === 'none' ? null : o.auth === 'any' ? [] : [o.auth]
  const operation: Json = {
    operationId: o.id,
    tags: [o.tag],
    summary: o.summary,
    ...(o.description ? { description: o.description } : {}),
    parameters,
    responses: {
      '200': { description: 'OK', content: { 'application/json': { schema: plain(o.response) } } },
      ...errorResponses(o),
    },
    security: scopes === null ? [] : [{ apiKey: scopes }, { bearer: scopes }],
    'x-required-scope': o.auth === 'none' ? null : o.auth,
  }
  if (o.body)
    operation.requestBody = { required: true, content: { 'application/json': { schema: plain(o.body) } } }
  // Streamed bodies (CSV imports, raw MIME) are described by their media types, read as bytes.
  if (o.stream)
    operation.requestBody = {
      required: true,
      description: `Streamed; at most ${o.stream.limit} bytes`,
      content: Object.fromEntries(
        o.stream.contentTypes.map((type) => [
          type,
          type.startsWith('multipart/')
            ? { schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } } } }
            : { schema: { type: 'string', format: 'binary' } },
        ]),
      ),
    }
  return operation
}

export function buildOpenApiDocument(operations: readonly Operation[], publicUrl: string): Json {
  const paths: Record<string, Json> = {}
  for (const o of operations) {
    paths[o.path] ??= {}
    paths[o.path]![o.method.toLowerCase()] = operationObject(o)
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Herald API',
      version: API_VERSION,
      description:
        'Self-hosted marketing and sales engagement. Authenticate with an API key (`Authorization: Bearer hrld_…` or `X-Api-Key`). ' +
        `Scopes: ${SCOPES.join(', ')}; admin:* grants all.`,
    },
    servers: [{ url: publicUrl }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        bearer: { type: 'http', scheme: 'bearer', description: 'API key or OAuth access token' },
      },
      responses: {
        Error: { description: 'Error', content: { 'application/json': { schema: plain(ErrorBody) } } },
      },
    },
  }
}
