import type { AppContext } from '../../context'
import { addressGroup } from '../../lib/ip-address'
import { createBuckets } from '../../lib/token-buckets'
import { grantableScopes } from '../../services/actors/actor'
import {
  type AuthorizationRequest,
  checkAuthorizationRequest,
  redirectWith,
} from '../../services/oauth/authorize'
import { isSelfRegistered } from '../../services/oauth/clients'
import { allowConsent, consentWorkspaces } from '../../services/oauth/consent'
import { isMetadataClientId, loadMetadataClient } from '../../services/oauth/metadata-document'
import { type PortalSession, resolveSession } from '../../services/portal-auth/sessions'
import { readCookie, SESSION_COOKIE } from '../admin/cookies'
import { tokenMatches } from '../admin/csrf'
import { CSP, withSecurityHeaders } from '../admin/headers'
import { createRenderer } from '../admin/render'
import { page } from '../admin/types'

// The authorization endpoint: the portal's sign-in if there is no session (the
// session cookie has Path=/ for this), then a consent page — the workspace the token is for
// (`client_id` select, the `tenant` claim), one `scope` checkbox per requested scope the user's
// role can grant, and `decision` allow/deny — posted back here with the session's CSRF token.
// The OAuth parameters ride in the form's action URL, so the form's `client_id` can be the
// workspace as DESIGN names it.

/** Metadata documents fetched for one IP, and for everyone, per minute (each also the burst). */
const METADATA_FETCHES_PER_IP_MINUTE = 10
const METADATA_FETCHES_PER_MINUTE = 60

const SCOPE_TEXT: Record<string, string> = {
  'campaigns:read': 'Read campaigns and their statistics',
  'campaigns:write': 'Create and change campaigns',
  'campaigns:launch': 'Launch, schedule and cancel campaigns',
  'contacts:read': 'Read contacts',
  'contacts:write': 'Create, change and delete contacts',
  'journeys:read': 'Read journeys',
  'journeys:write': 'Create and change journeys',
  'analytics:read': 'Read analytics',
  'lists:write': 'Create and change lists',
  'templates:write': 'Create and change templates',
  'compliance:read': 'Read suppressions and consent',
}

/** Names the URL's query gives more than once (the form's `scope` checkboxes legitimately repeat). */
const repeatedIn = (url: URL) =>
  [...new Set(url.searchParams.keys())].filter((name) => url.searchParams.getAll(name).length > 1)

/** Form fields that carry OAuth parameters whose own names the consent form uses otherwise. */
const FORM_NAMES: Record<string, string> = { client_id: 'oauth_client_id', scope: 'requested_scope' }

export function createAuthorizeEndpoint(app: AppContext) {
  const render = createRenderer([])

  const html = async (
    view: string,
    title: string,
    data: Record<string, unknown>,
    status: number,
    csrf = '',
    formAction = '',
  ) => {
    const response = withSecurityHeaders(
      await render.page(
        page(view, title, data, status),
        { req: null, csrf, flash: null, path: '/oauth2/authorize' },
        false,
      ),
    )
    // The consent form posts here and is answered with a redirect to the client: browsers apply
    // form-action to that redirect too, so the client's origin is allowed for this page.
    if (formAction)
      response.headers.set(
        'content-security-policy',
        CSP.replace("form-action 'self'", `form-action 'self' ${formAction}`),
      )
    return response
  }
  const errorPage = (message: string, status = 400) =>
    html(
      'pages/oauth/error',
      'Cannot continue',
      { heading: 'This sign-in link does not work', message },
      status,
    )
  const redirect = (to: string) =>
    new Response(null, { status: 303, headers: { location: to, 'cache-control': 'no-store' } })

  async function consentPage(
    session: PortalSession,
    request: AuthorizationRequest,
    url: URL,
    error: string | null,
    status = 200,
  ) {
    const workspaces = await consentWorkspaces(app, session.user, request.client)
    const { allowed, refused } = grantableScopes(session.user.role, request.scopes)
    if (workspaces.length === 0)
      return errorPage(
        request.client.clientId === null
          ? 'You have no workspace to grant access to. Ask an owner to add you to one.'
          : 'This application is registered for a workspace you do not belong to.',
        403,
      )
    if (allowed.length === 0)
      return errorPage(`Your role cannot grant any of the requested scopes (${refused.join(', ')}).`, 403)
    const selected = workspaces.some((w) => w.id === session.workspaceId)
      ? session.workspaceId
      : workspaces[0]!.id
    return html(
      'pages/oauth/consent',
      `Allow ${request.client.name}?`,
      {
        client_name: request.client.name,
        unverified: isSelfRegistered(request.client),
        email: session.user.email,
        redirect_host: new URL(request.redirectUri).host,
        action: `/oauth2/authorize${url.search}`,
        oauth_client_id: request.client.id,
        // The request's parameters again as hidden fields, for a form posted without its action's query.
        hidden: [
          ['response_type', 'code'],
          ['redirect_uri', request.redirectUriGiven ? request.redirectUri : null],
          ['requested_scope', request.scopes.join(' ')],
          ['state', request.state],
          ['code_challenge', request.codeChallenge],
          ['code_challenge_method', 'S256'],
          ['resource', request.resource],
        ]
          .filter(([, value]) => value !== null)
          .map(([name, value]) => ({ name, value })),
        consent_workspaces: workspaces,
        selected,
        scopes: allowed.map((name) => ({ name, description: SCOPE_TEXT[name] ?? name })),
        refused,
        error,
      },
      status,
      session.csrfToken,
      new URL(request.redirectUri).origin,
    )
  }

  const sessionOf = async (request: Request) => {
    const token = readCookie(request, SESSION_COOKIE)
    return token ? await resolveSession(app, token) : null
  }

  // Fetching a metadata document costs Herald a connection and a row: anyone may ask for one, so
  // fetches (not answers from the document cache) are limited per caller IP and for the server.
  // Counted per process: each bounds its own outbound fetches.
  const fetches = createBuckets()
  const perIp = { perMinute: METADATA_FETCHES_PER_IP_MINUTE, burst: METADATA_FETCHES_PER_IP_MINUTE }
  const perServer = { perMinute: METADATA_FETCHES_PER_MINUTE, burst: METADATA_FETCHES_PER_MINUTE }
  const mayFetch = (ip: string) => () => {
    const now = app.clock.now()
    const mine = fetches(`ip|${addressGroup(ip)}`, perIp, now)
    if (!mine.allowed) return mine.headers['retry-after']!
    const all = fetches('*', perServer, now)
    return all.allowed ? null : all.headers['retry-after']!
  }

  async function get(request: Request, ip: string): Promise<Response> {
    const url = new URL(request.url)
    const clientId = url.searchParams.get('client_id')
    if (clientId && isMetadataClientId(clientId)) {
      const outcome = await loadMetadataClient(app, clientId, mayFetch(ip))
      if (!outcome.ok && 'retryAfter' in outcome) {
        const res = await errorPage(
          `Too many applications were looked up from your address; try again in ${outcome.retryAfter} s.`,
          429,
        )
        res.headers.set('retry-after', outcome.retryAfter)
        return res
      }
      if (!outcome.ok) return errorPage(outcome.problem)
    }
    const checked = await checkAuthorizationRequest(
      app,
      (name) => url.searchParams.get(name),
      repeatedIn(url),
    )
    if (!checked.ok) {
      if (checked.redirect === null) return errorPage(checked.message)
      return redirect(redirectWith(app, checked.redirect, { ...checked.error.body(), state: checked.state }))
    }
    const session = await sessionOf(request)
    if (!session) return redirect(`/admin/login?next=${encodeURIComponent(url.pathname + url.search)}`)
    return await consentPage(session, checked.request, url, null)
  }

  async function post(request: Request): Promise<Response> {
    const url = new URL(request.url)
    let form: FormData
    try {
      form = await request.formData()
    } catch {
      return errorPage('The consent form could not be read.')
    }
    const field = (name: string) => {
      const v = form.get(name)
      return typeof v === 'string' ? v : null
    }
    // The OAuth parameters come from the action URL; a form that carries them as fields works too
    // (the OAuth client id then as `oauth_client_id`, since `client_id` is the workspace).
    const param = (name: string) => url.searchParams.get(name) ?? field(FORM_NAMES[name] ?? name)
    const checked = await checkAuthorizationRequest(app, param, repeatedIn(url))
    if (!checked.ok) {
      if (checked.redirect === null) return errorPage(checked.message)
      return redirect(redirectWith(app, checked.redirect, { ...checked.error.body(), state: checked.state }))
    }
    const session = await sessionOf(request)
    if (!session) return errorPage('Your session ended. Go back to the application and start again.', 403)
    if (
      !tokenMatches(field('_csrf'), session.csrfToken) ||
      request.headers.get('sec-fetch-site') === 'cross-site'
    )
      return errorPage('This form is missing its security token or it expired. Go back and start again.', 403)
    const req = checked.request
    const decision = field('decision')
    if (decision === 'deny')
      return redirect(
        redirectWith(app, req.redirectUri, {
          error: 'access_denied',
          error_description: 'The user denied the request',
          state: req.state,
        }),
      )
    if (decision !== 'allow') return await consentPage(session, req, url, 'Choose Allow or Deny.', 400)
    const chosen = form.getAll('scope').filter((s): s is string => typeof s === 'string')
    const consent = await allowConsent(app, session.user, req, {
      workspace: field('client_id'),
      scopes: chosen,
    })
    if (!consent.ok && consent.problem === 'workspace')
      return await consentPage(session, req, url, 'Choose one of your workspaces.', 400)
    if (!consent.ok)
      return redirect(
        redirectWith(app, req.redirectUri, {
          error: 'access_denied',
          error_description: 'No scope was allowed',
          state: req.state,
        }),
      )
    const { code } = consent
    return redirect(redirectWith(app, req.redirectUri, { code, state: req.state }))
  }

  /** A POST refused before its form is read: too large (413), or too many from one address (429). */
  const refuse = async (status: 413 | 429, message: string, retryAfter?: string) => {
    const response = await errorPage(message, status)
    if (retryAfter) response.headers.set('retry-after', retryAfter)
    return response
  }

  return { get, post, refuse }
}
