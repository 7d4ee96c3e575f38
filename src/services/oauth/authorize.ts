import type { AppContext } from '../../context'
import type { OAuthClientRow } from '../../db/schema'
import { OAUTH_SCOPES } from '../../lib/scopes'
import { findOAuthClient, isSelfRegistered } from './clients'
import { OAuthError } from './errors'

// The authorization request (RFC 6749 §4.1.1 with OAuth 2.1's rules): checked before anything
// is shown. A bad client_id or redirect_uri is shown to the user, never redirected to (that
// would make us an open redirector); every other error goes back to the client's redirect URI
// when an operator registered the client. A client that registered itself (RFC 7591, or a
// metadata document) chose its redirect URI freely, so its errors are shown on Herald's page
// too (RFC 9700 §4.11.2): otherwise anyone could register https://evil.example and bounce
// visitors there through Herald.

export interface AuthorizationRequest {
  client: OAuthClientRow
  redirectUri: string
  /** redirect_uri was in the request (not the client's only registered one taken by default). */
  redirectUriGiven: boolean
  state: string | null
  scopes: string[]
  codeChallenge: string
  resource: string | null
}

export type Checked =
  | { ok: true; request: AuthorizationRequest }
  /** Shown on a page: there is no redirect URI we may trust. */
  | { ok: false; redirect: null; message: string }
  | { ok: false; redirect: string; error: OAuthError; state: string | null }

/** RFC 7636: base64url of a SHA-256, 43 characters. */
const CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/

/** The request's parameters, each of which may be given once (RFC 6749 §3.1). */
const PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'resource',
]

/**
 * `repeated` lists the names given more than once: a repeated client_id or redirect_uri leaves
 * no redirect URI to trust (shown on the page); any other goes back as invalid_request.
 */
export async function checkAuthorizationRequest(
  app: AppContext,
  params: (name: string) => string | null,
  repeated: readonly string[] = [],
): Promise<Checked> {
  const twice = PARAMS.filter((name) => repeated.includes(name))
  if (twice.includes('client_id') || twice.includes('redirect_uri'))
    return {
      ok: false,
      redirect: null,
      message: `The request gives ${twice.filter((n) => n === 'client_id' || n === 'redirect_uri').join(' and ')} more than once.`,
    }
  const clientIdParam = params('client_id')
  if (!clientIdParam)
    return { ok: false, redirect: null, message: 'The request names no client (client_id).' }
  const client = await findOAuthClient(app, clientIdParam)
  if (!client)
    return { ok: false, redirect: null, message: 'The application asking for access is not registered here.' }
  const asked = params('redirect_uri')
  const redirectUri = asked ?? (client.redirectUris.length === 1 ? client.redirectUris[0]! : null)
  if (!redirectUri || !client.redirectUris.includes(redirectUri))
    return {
      ok: false,
      redirect: null,
      message: 'The address the application asked to return to is not one it registered (redirect_uri).',
    }
  const state = params('state')
  const fail = (error: OAuthError): Checked =>
    isSelfRegistered(client)
      ? {
          ok: false,
          redirect: null,
          message: `The application's request cannot be used: ${error.description} (${error.error}).`,
        }
      : { ok: false, redirect: redirectUri, error, state }
  if (twice.length > 0)
    return fail(new OAuthError('invalid_request', `${twice.join(', ')} given more than once`))
  if (params('response_type') !== 'code')
    return fail(new OAuthError('unsupported_response_type', 'response_type must be "code"'))
  const challenge = params('code_challenge')
  if (!challenge) return fail(new OAuthError('invalid_request', 'code_challenge is required (PKCE)'))
  if (params('code_challenge_method') !== 'S256')
    return fail(
      new OAuthError('invalid_request', 'code_challenge_method must be S256 (plain is not accepted)'),
    )
  if (!CHALLENGE_RE.test(challenge))
    return fail(
      new OAuthError('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier'),
    )
  const scope = params('scope')
  let scopes: string[]
  if (scope === null || scope.trim() === '')
    scopes = client.scopes.filter((s) => (OAUTH_SCOPES as readonly string[]).includes(s))
  else {
    scopes = [...new Set(scope.trim().split(/\s+/))]
    const outside = scopes.filter(
      (s) => !client.scopes.includes(s) || !(OAUTH_SCOPES as readonly string[]).includes(s),
    )
    if (outside.length > 0)
      return fail(new OAuthError('invalid_scope', `Scope not available to this client: ${outside.join(' ')}`))
  }
  if (scopes.length === 0) return fail(new OAuthError('invalid_scope', 'No scope requested'))
  const resource = params('resource')
  const problem = resource === null ? null : resourceProblem(app, resource)
  if (problem) return fail(new OAuthError('invalid_target', problem))
  return {
    ok: true,
    request: {
      client,
      redirectUri,
      redirectUriGiven: asked !== null,
      state,
      scopes,
      codeChallenge: challenge,
      resource,
    },
  }
}

/**
 * RFC 8707 §2: `resource` is an absolute URI without a fragment, and here one of Herald's own
 * (REST at the public URL, MCP under /mcp/v1): it becomes the token's `aud`, and Herald does not
 * mint tokens for other servers.
 */
function resourceProblem(app: AppContext, resource: string): string | null {
  let url: URL
  try {
    url = new URL(resource)
  } catch {
    return 'resource must be an absolute URI'
  }
  if (resource.includes('#')) return 'resource must not contain a fragment'
  if (url.origin !== new URL(app.config.publicUrl).origin)
    return `resource must be one of this server's (${app.config.publicUrl}, ${app.config.publicUrl}/mcp/v1)`
  return null
}

/**
 * Is `aud` (a string or a list) for Herald: one of the resources it mints tokens for (its public
 * URL when none was asked for). A token of ours for any other audience is not accepted here.
 */
export function isHeraldAudience(app: AppContext, aud: unknown): boolean {
  const list = Array.isArray(aud) ? aud : [aud]
  return list.some((a) => typeof a === 'string' && resourceProblem(app, a) === null)
}

/** The client's redirect URI with the answer's parameters (and `iss`, RFC 9207). */
export function redirectWith(
  app: AppContext,
  redirectUri: string,
  values: Record<string, string | null>,
): string {
  const url = new URL(redirectUri)
  for (const [name, value] of Object.entries(values)) if (value !== null) url.searchParams.set(name, value)
  url.searchParams.set('iss', app.config.publicUrl)
  return url.toString()
}
