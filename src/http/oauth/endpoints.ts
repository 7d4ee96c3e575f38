import type { AppContext } from '../../context'
import { findOAuthClient } from '../../services/oauth/clients'
import { OAuthError } from '../../services/oauth/errors'
import {
  authenticateClient,
  checkGrantType,
  clientCredentials,
  exchangeCode,
  JWT_BEARER,
  jwtBearer,
  type PresentedClient,
  refresh,
  revokeToken,
} from '../../services/oauth/grants'
import { registerClient } from '../../services/oauth/register'
import { parseJson } from '../middleware/body'
import { basicCredentials, oauthErrorResponse, oauthJson, readOAuthForm, triesBasic } from './respond'

// The token (RFC 6749 §3.2), revocation (RFC 7009) and dynamic registration (RFC 7591)
// endpoints: parse the form, authenticate the client, hand over to the grant services.

function presentedClient(request: Request, form: Map<string, string>): PresentedClient {
  const basic = basicCredentials(request)
  // A Basic header that does not decode to `id:secret` is a failed authentication, not none at all.
  if (!basic && triesBasic(request))
    throw new OAuthError('invalid_client', 'Client authentication failed: malformed Basic credentials')
  if (basic) {
    if (form.has('client_secret'))
      throw new OAuthError(
        'invalid_request',
        'Use one client authentication method, not Basic and client_secret',
      )
    if (form.has('client_id') && form.get('client_id') !== basic.id)
      throw new OAuthError('invalid_request', 'client_id differs from the Basic credentials')
    return { clientId: basic.id, secret: basic.secret, basic: true }
  }
  return { clientId: form.get('client_id') ?? null, secret: form.get('client_secret') ?? null, basic: false }
}

const opt = (form: Map<string, string>, name: string) => form.get(name)

export async function tokenEndpoint(app: AppContext, request: Request): Promise<Response> {
  const basic = triesBasic(request)
  try {
    const form = await readOAuthForm(request)
    const presented = presentedClient(request, form)
    const grantType = form.get('grant_type')
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required')
    const client = await authenticateClient(async (id) => await findOAuthClient(app, id), presented)
    checkGrantType(client, grantType)
    switch (grantType) {
      case 'authorization_code':
        return oauthJson(
          200,
          await exchangeCode(app, client, {
            code: opt(form, 'code'),
            redirect_uri: opt(form, 'redirect_uri'),
            code_verifier: opt(form, 'code_verifier'),
          }),
        )
      case 'refresh_token':
        return oauthJson(
          200,
          await refresh(app, client, {
            refresh_token: opt(form, 'refresh_token'),
            scope: opt(form, 'scope'),
          }),
        )
      case 'client_credentials':
        return oauthJson(200, await clientCredentials(app, client, { scope: opt(form, 'scope') }))
      case JWT_BEARER:
        return oauthJson(
          200,
          await jwtBearer(app, client, { assertion: opt(form, 'assertion'), scope: opt(form, 'scope') }),
        )
      default:
        throw new OAuthError(
          'unsupported_grant_type',
          `grant_type ${grantType.slice(0, 100)} is not supported`,
        )
    }
  } catch (err) {
    if (err instanceof OAuthError) return oauthErrorResponse(err, basic)
    throw err
  }
}

export async function revokeEndpoint(app: AppContext, request: Request): Promise<Response> {
  const basic = triesBasic(request)
  try {
    const form = await readOAuthForm(request)
    const presented = presentedClient(request, form)
    const token = form.get('token')
    if (!token) throw new OAuthError('invalid_request', 'token is required')
    const client = await authenticateClient(async (id) => await findOAuthClient(app, id), presented)
    await revokeToken(app, client, token)
    return oauthJson(200, {})
  } catch (err) {
    if (err instanceof OAuthError) return oauthErrorResponse(err, basic)
    throw err
  }
}

export async function registerEndpoint(app: AppContext, request: Request): Promise<Response> {
  try {
    let body: unknown
    try {
      body = parseJson(await request.bytes(), request.headers.get('content-type'))
    } catch {
      throw new OAuthError('invalid_client_metadata', 'The body must be a JSON object (application/json)')
    }
    return oauthJson(201, await registerClient(app, body))
  } catch (err) {
    if (err instanceof OAuthError) return oauthErrorResponse(err)
    throw err
  }
}
