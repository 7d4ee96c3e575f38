// Typed service errors. Domain code throws these; src/http/rest/respond.ts is the one place that
// turns them into HTTP statuses and the error body `{error: {code, message, request_id, details?}}`.

export type ErrorCode =
  | 'INVALID_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'INVALID_STATE'
  | 'CONFLICT'
  | 'IDEMPOTENCY_KEY_IN_USE'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'VALIDATION_FAILED'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'UNAVAILABLE'
  | 'INSUFFICIENT_STORAGE'

import type { FieldError } from './lib/validate'

export type { FieldError }

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message)
  }
}

export const notFound = (what = 'Resource') => new ServiceError('NOT_FOUND', `${what} not found`)

export function validationFailed(errors: FieldError[]): ServiceError {
  const first = errors[0]
  const message =
    errors.length === 1 && first
      ? `${first.field}: ${first.message}`
      : `${errors.length} fields are invalid; see details`
  return new ServiceError('VALIDATION_FAILED', message, errors)
}

export const invalidField = (field: string, message: string) => validationFailed([{ field, message }])

export const conflict = (message: string, existingId: string) =>
  new ServiceError('CONFLICT', message, { existing_id: existingId })

export const invalidState = (message: string, status: string, allowedFrom: readonly string[]) =>
  new ServiceError('INVALID_STATE', message, { status, allowed_from: allowedFrom })

export const forbidden = (message: string, details?: unknown) =>
  new ServiceError('FORBIDDEN', message, details)

/** What an operator reads when a write fails for want of space, and what to do about it. */
const FULL = 'the data volume is full. Free space on it and retry.'

/**
 * A write that failed because the data volume is full, as the error a caller gets (507
 * INSUFFICIENT_STORAGE): SQLite's SQLITE_FULL ("database or disk is full"), PostgreSQL's disk_full
 * or a file write's ENOSPC / EDQUOT, also when wrapped as the cause of another error. Null for
 * anything else.
 */
export function storageFullError(err: unknown): ServiceError | null {
  let e = err
  for (let depth = 0; depth < 4 && e !== null && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code
    if (code === 'SQLITE_FULL')
      return new ServiceError('INSUFFICIENT_STORAGE', `The database could not write: ${FULL}`)
    // PostgreSQL's disk_full (SQLSTATE 53100, in errno of Bun's PostgresError): the volume is
    // the database server's, not this process's data directory.
    if ((e as { errno?: unknown }).errno === '53100')
      return new ServiceError(
        'INSUFFICIENT_STORAGE',
        "The database could not write: the PostgreSQL server's volume is full. Free space on it and retry.",
      )
    if (code === 'ENOSPC' || code === 'EDQUOT')
      return new ServiceError('INSUFFICIENT_STORAGE', `A file could not be written: ${FULL}`)
    e = (e as { cause?: unknown }).cause
  }
  return null
}
