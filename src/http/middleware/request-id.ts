import { isUuid, newId } from '../../lib/ids'

/** The caller's X-Request-Id when it is a UUID (so logs can be joined), else a new UUIDv7. */
export function requestIdFor(request: Request): string {
  const given = request.headers.get('x-request-id')
  return given && isUuid(given) ? given : newId()
}
