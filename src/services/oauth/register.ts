import type { AppContext } from '../../context'
import { oauthClients } from '../../db/schema'
import { newId } from '../../lib/ids'
import { OAUTH_SCOPES } from '../../lib/scopes'
import { NAME_PATTERN } from '../../lib/validate'
import { OAuthError } from './errors'
import { redirectUriProblem } from './redirect-uris'

// RFC 7591 dynamic registration: public clients only (token_endpoint_auth_method
// `none`), the code and refresh grants, redirect URIs https:// or loopback http://. Anyone may
// register; what a registration can reach is decided at consent, by the signed-in user.

const GRANTS = ['authorization_code', 'refresh_token']
const NAME_RE = new RegExp(NAME_PATTERN)

const metadataError = (message: string) => new OAuthError('invalid_client_metadata', message)

export async function registerClient(app: AppContext, body: unknown) {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw metadataError('The registration request must be a JSON object')
  const m = body as Record<string, unknown>
  const uris = m.redirect_uris
  if (
    !Array.isArray(uris) ||
    uris.length === 0 ||
    uris.length > 20 ||
    uris.some((u) => typeof u !== 'string')
  )
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be an array of 1 to 20 URLs')
  for (const uri of uris as string[]) {
    const problem = redirectUriProblem(uri)
    if (problem || uri.length > 2000)
      throw new OAuthError('invalid_redirect_uri', `${uri.slice(0, 200)}: ${problem ?? 'too long'}`)
  }
  const method = m.token_endpoint_auth_method ?? 'none'
  if (method !== 'none')
    throw metadataError('Only public clients may register here: token_endpoint_auth_method must be "none"')
  const grantTypes = m.grant_types ?? ['authorization_code', 'refresh_token']
  if (!Array.isArray(grantTypes) || grantTypes.some((g) => !GRANTS.includes(g as string)))
    throw metadataError(`grant_types may hold only ${GRANTS.join(', ')}`)
  const responseTypes = m.response_types ?? ['code']
  if (!Array.isArray(responseTypes) || responseTypes.some((r) => r !== 'code'))
    throw metadataError('response_types may hold only "code"')
  let scopes: string[] = [...OAUTH_SCOPES]
  if (m.scope !== undefined) {
    if (typeof m.scope !== 'string' || m.scope.trim() === '')
      throw metadataError('scope must be a space-separated string')
    scopes = [...new Set(m.scope.trim().split(/\s+/))]
    const unknown = scopes.filter((s) => !(OAUTH_SCOPES as readonly string[]).includes(s))
    if (unknown.length > 0) throw metadataError(`Scopes not offered through OAuth: ${unknown.join(' ')}`)
  }
  const name = m.client_name ?? 'Unnamed client'
  if (typeof name !== 'string' || name.length === 0 || name.length > 200 || !NAME_RE.test(name))
    throw metadataError('client_name must be one line of 1 to 200 characters')
  const now = app.clock.now()
  const row = (
    await app.db
      .insert(oauthClients)
      .values({
        id: newId(),
        name,
        clientId: null,
        redirectUris: uris as string[],
        confidential: false,
        secretHash: null,
        scopes,
        source: 'dynamic',
        createdAt: now,
      })
      .returning()
  )[0]!
  return {
    client_id: row.id,
    client_id_issued_at: Math.floor(now / 1000),
    client_name: row.name,
    redirect_uris: row.redirectUris,
    grant_types: grantTypes as string[],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope: scopes.join(' '),
  }
}
