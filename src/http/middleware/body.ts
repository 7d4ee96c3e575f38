import { ServiceError } from '../../errors'
import { BodyTooLarge, readCappedBody } from '../../lib/capped-body'

export const JSON_BODY_LIMIT = 1024 * 1024
/**
 * Doors that take no credential (sign-in, OAuth, agent registration, provider callbacks) read at
 * most this much: their forms are small, and anyone can send them a body.
 */
export const ANONYMOUS_BODY_LIMIT = 64 * 1024

const tooLarge = (limit: number) =>
  new ServiceError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`)

export function isJsonType(contentType: string | null): boolean {
  if (contentType === null) return true // curl-style bodies without a type are read as JSON
  const type = contentType.split(';')[0]!.trim().toLowerCase()
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))
}

/** Reads the raw body, refusing more than `limit` bytes whether or not Content-Length was sent. */
export async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  try {
    return await readCappedBody(request, limit)
  } catch (err) {
    throw err instanceof BodyTooLarge ? tooLarge(limit) : err
  }
}

/**
 * The request again with its body read into memory, at most `limit` bytes (413 above: a declared
 * Content-Length before any read, a streamed body as soon as it passes the limit), for a door
 * whose handler parses the body itself (formData, text).
 */
export async function bufferedRequest(request: Request, limit: number): Promise<Request> {
  if (!request.body) return request
  const body = await readLimited(request, limit)
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: body as BodyInit,
  })
}

// One decoder for every request: decode() without { stream } keeps no state between calls.
const decoder = new TextDecoder()

/** The JSON body of a request: 415 for another type, 400 when it does not parse. Empty = {}. */
export function parseJson(raw: Uint8Array, contentType: string | null): unknown {
  if (raw.byteLength === 0) return {}
  if (!isJsonType(contentType))
    throw new ServiceError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type ${contentType || '(none)'} is not supported; send application/json`,
    )
  const text = decoder.decode(raw)
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new ServiceError('INVALID_REQUEST', `The body is not valid JSON: ${(err as Error).message}`)
  }
}

/** For operations that stream their body: the type must be one they take, the declared size within the limit. */
export function checkStreamedBody(
  request: Request,
  accept: { contentTypes: readonly string[]; limit: number },
): void {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (!accept.contentTypes.includes(type))
    throw new ServiceError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type ${type || '(none)'} is not supported here; send ${accept.contentTypes.join(' or ')}`,
    )
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > accept.limit) throw tooLarge(accept.limit)
}
