import type { ErrorCode } from '../../errors'
import { isMutating, type Operation } from '../rest/define-operation'
import { ERROR_STATUS } from '../rest/respond'
import { canonical, type Json, ref } from './schemas'

// The error envelopes, response headers and error responses of the OpenAPI document.

// ---------------------------------------------------------------------------------------------
// Errors and headers.

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

export function errorSchemas(): Record<string, Json> {
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
      'The error body: every failure, whatever its status, answers with it; these codes carry no details.',
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
    // Same code as ConflictError, other details: the records that still use the one to delete.
    InUseError: errorEnvelope(
      'The record is still used by others and cannot be deleted (409), e.g. a template a running campaign renders.',
      { type: 'string', const: 'CONFLICT' },
      {
        schema: {
          type: 'object',
          required: ['used_by'],
          properties: {
            used_by: {
              type: 'array',
              minItems: 1,
              items: {
                type: 'object',
                required: ['type', 'id', 'name', 'status'],
                properties: {
                  type: { type: 'string', enum: ['campaign', 'journey', 'sequence'] },
                  id: { type: 'string', format: 'uuid' },
                  name: { type: 'string' },
                  status: { type: 'string', description: 'Its current state' },
                },
              },
            },
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

export const HEADERS: Record<string, Json> = {
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

export const header = (name: string) => ({ $ref: `#/components/headers/${name}` })

export function responseHeaders(o: Operation, status: string): Json {
  const names = ['X-Request-Id']
  const authenticated = o.auth !== 'none'
  // A key's bucket is known once the key is (not on its 401); a per-IP bucket is taken first.
  if ((authenticated && status !== '401' && status !== '503') || (o.perIpLimit && status !== '503'))
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
  '507':
    'The data volume is full: nothing could be written, retry once space is freed (INSUFFICIENT_STORAGE)',
}

function errorSchema(o: Operation, status: string): Json {
  if (status === '403') return ref('ForbiddenError')
  if (status === '409')
    return {
      anyOf: [ref('InvalidStateError'), ref(o.refusesInUse ? 'InUseError' : 'ConflictError'), ref('Error')],
    }
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
  '507': 'InsufficientStorage',
}

/**
 * The error responses of an operation, as `$ref`s to components.responses: one per status and
 * kind of operation (public; authenticated, with RateLimit headers; authenticated and mutating,
 * with the Idempotency-Key headers too).
 */
export function errorResponses(o: Operation, responses: Record<string, Json>): Json {
  const codes = ['500', '503']
  if (o.auth !== 'none') codes.push('401', '403', '429')
  // Agent register/claim/revoke: a per-IP bucket, and a claim judges a handle and an assertion.
  if (o.perIpLimit) codes.push('401', '403', '404', '429')
  if (o.path.includes('{')) codes.push('404')
  if (o.query || o.body || o.documented) codes.push('422')
  // Any write may meet a full data volume.
  if (isMutating(o)) codes.push('409', '413', '507')
  if (o.body) codes.push('400', '415')
  if (o.stream) codes.push('415')
  return Object.fromEntries(
    [...new Set(codes)].sort().map((c) => {
      const headers = responseHeaders(o, c)
      const inUse = c === '409' && o.refusesInUse === true
      const response = {
        description: inUse
          ? 'Still used by other records (CONFLICT; details.used_by), invalid state, or idempotency key in use'
          : ERRORS[c],
        headers,
        content: { 'application/json': { schema: errorSchema(o, c) } },
      }
      const suffix =
        'Idempotency-Key' in headers
          ? 'Idempotent'
          : o.perIpLimit && c !== '503'
            ? 'PerIp'
            : 'RateLimit-Limit' in headers || c === '401' || c === '503'
              ? ''
              : 'Public'
      const name = `${ERROR_NAMES[c]}${inUse ? 'InUse' : ''}${suffix}`
      responses[name] ??= response
      if (canonical(responses[name]) !== canonical(response))
        throw new Error(`OpenAPI: two different ${c} responses are named ${name}`)
      return [c, { $ref: `#/components/responses/${name}` }]
    }),
  )
}
