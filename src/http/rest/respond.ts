import { type ErrorCode, ServiceError, storageFullError } from '../../errors'

/** Every error code and its status; the OpenAPI document's error schemas come from it. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  INVALID_STATE: 409,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_FAILED: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
}

export const JSON_TYPE = 'application/json; charset=utf-8'

export function statusOf(code: ErrorCode): number {
  return ERROR_STATUS[code]
}

/** The error body: `{error: {code, message, request_id, details?}}`. */
export function errorBody(code: ErrorCode, message: string, requestId: string, details?: unknown): string {
  const error: Record<string, unknown> = { code, message, request_id: requestId }
  if (details !== undefined) error.details = details
  return JSON.stringify({ error })
}

export function jsonResponse(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'content-type': JSON_TYPE, ...headers } })
}

/** Codes the operator must hear about: the answer is logged with its request id. */
const LOGGED: readonly ErrorCode[] = ['INTERNAL_ERROR', 'INSUFFICIENT_STORAGE']

/**
 * Maps anything thrown to a response: a full data volume (SQLite or a file) to 507
 * INSUFFICIENT_STORAGE; other unknown errors to a bare 500 (never a stack trace).
 */
export function errorResponse(
  err: unknown,
  requestId: string,
  headers: Record<string, string> = {},
): { response: Response; internal: boolean } {
  const known = err instanceof ServiceError ? err : storageFullError(err)
  if (known) {
    return {
      response: jsonResponse(
        statusOf(known.code),
        errorBody(known.code, known.message, requestId, known.details),
        headers,
      ),
      internal: LOGGED.includes(known.code),
    }
  }
  return {
    response: jsonResponse(
      500,
      errorBody(
        'INTERNAL_ERROR',
        'An internal error occurred; it was logged with this request id',
        requestId,
      ),
      headers,
    ),
    internal: true,
  }
}
