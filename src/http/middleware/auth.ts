import { ServiceError } from '../../errors'

/** The credential presented, from `Authorization: Bearer` or `X-Api-Key`. */
export function presentedCredential(request: Request): { present: boolean; token: string | null } {
  const authorization = request.headers.get('authorization')
  const apiKey = request.headers.get('x-api-key')
  if (authorization !== null) {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization)
    if (match?.[1]) return { present: true, token: match[1] }
    if (apiKey === null) return { present: true, token: null } // Basic, empty Bearer, …
  }
  if (apiKey !== null) return { present: true, token: apiKey.trim() || null }
  return { present: false, token: null }
}

/**
 * The 401 challenge: `Bearer resource_metadata="<url>"`, with `error="invalid_token"` first when a
 * credential was presented. `resourcePath` names a protected resource other than the
 * REST API (`/mcp/v1`): its metadata document sits under that path (RFC 9728 §3.1).
 */
export function wwwAuthenticate(publicUrl: string, credentialPresented: boolean, resourcePath = ''): string {
  const metadata = `${publicUrl}/.well-known/oauth-protected-resource${resourcePath}`
  return credentialPresented
    ? `Bearer error="invalid_token", resource_metadata="${metadata}"`
    : `Bearer resource_metadata="${metadata}"`
}

const REASONS: Record<string, string> = {
  missing: 'Authentication required: send an API key as "Authorization: Bearer <key>" or "X-Api-Key: <key>"',
  malformed: 'The Authorization header must be "Bearer <key>"',
  unknown: 'The API key is not valid',
  revoked: 'The API key has been revoked',
  expired: 'The API key has expired',
}

/** `message`, when given, says more than the reason's stock sentence (why an OAuth token failed). */
export function unauthorized(reason: keyof typeof REASONS | string, message?: string): ServiceError {
  return new ServiceError('UNAUTHORIZED', message ?? REASONS[reason] ?? 'The credential is not valid')
}
