import { OAuthError } from '../../services/oauth/errors'

// Answers of the OAuth endpoints: JSON that is never cached (RFC 6749 §5.1), errors in RFC 6749
// §5.2's shape. Token, registration, revocation and the metadata documents are called from
// browser-based clients too (an MCP inspector), so they allow any origin; they take no cookie.
// The MCP SDK sends MCP-Protocol-Version on its discovery requests, so that header is allowed.

export const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
}

export function oauthJson(status: number, body: unknown, extra: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      pragma: 'no-cache',
      ...CORS,
      ...extra,
    },
  })
}

/** An OAuthError as its RFC 6749 §5.2 body; a Basic-authenticated client's 401 gets a Basic challenge. */
export function oauthErrorResponse(err: OAuthError, basic = false): Response {
  const extra: Record<string, string> = {}
  if (err.status === 401) extra['www-authenticate'] = basic ? 'Basic realm="herald"' : 'Bearer realm="herald"'
  return oauthJson(err.status, err.body(), extra)
}

/** 429 for an endpoint's per-IP bucket, in the OAuth error shape. */
export function rateLimited(retryAfter: string): Response {
  return oauthJson(
    429,
    {
      error: 'rate_limited',
      error_description: `Too many requests from this address; retry in ${retryAfter} s`,
    },
    { 'retry-after': retryAfter },
  )
}

/** A form body (RFC 6749 §3.2): urlencoded, each parameter at most once. */
export async function readOAuthForm(request: Request): Promise<Map<string, string>> {
  const type = request.headers.get('content-type') ?? ''
  if (!/^application\/x-www-form-urlencoded\b/i.test(type))
    throw new OAuthError('invalid_request', 'The body must be application/x-www-form-urlencoded')
  // The body was read within 64 KiB before the endpoint was called (plugin.ts).
  const text = await request.text()
  const out = new Map<string, string>()
  for (const [name, value] of new URLSearchParams(text)) {
    if (out.has(name)) throw new OAuthError('invalid_request', `${name} is given more than once`)
    out.set(name, value)
  }
  return out
}

/** Whether the client tried `Authorization: Basic` at all: a malformed attempt is still answered
 * with a Basic challenge (RFC 6749 §5.2), not treated as no authentication. */
export const triesBasic = (request: Request) =>
  /^Basic(\s|$)/i.test(request.headers.get('authorization') ?? '')

/** `Authorization: Basic` client credentials (RFC 6749 §2.3.1: each part form-urlencoded). */
export function basicCredentials(request: Request): { id: string; secret: string } | null {
  const header = request.headers.get('authorization')
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null
  if (!match) return null
  const decoded = Buffer.from(match[1]!, 'base64').toString()
  const colon = decoded.indexOf(':')
  if (colon === -1) return null
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon)),
      secret: decodeURIComponent(decoded.slice(colon + 1)),
    }
  } catch {
    return null
  }
}
