import { rmSync } from 'node:fs'
import type { AppContext } from '../../context'
import { withActor } from '../../context'
import { ServiceError, storageFullError } from '../../errors'
import { randomBase62 } from '../../lib/crypto'
import { userActor } from '../../services/actors/actor'
import { IMPORT_LIMIT } from '../../services/imports/create'
import { requestBuckets } from '../../services/limits/request-buckets'
import { attemptLogin } from '../../services/portal-auth/login'
import {
  destroySession,
  type Flash,
  type PortalSession,
  resolveSession,
  setFlash,
  setWorkspace,
  takeFlash,
} from '../../services/portal-auth/sessions'
import { loadIdentity, workspacesOf } from '../../services/users/access'
import { ANONYMOUS_BODY_LIMIT, bufferedRequest } from '../middleware/body'
import { isMultipart } from '../middleware/multipart'
import { createIpLimiter } from '../middleware/rate-limit'
import { spoolForm, type Upload, uploadsDir } from '../middleware/upload'
import { alertBanner } from './alert-banner'
import { assetResponse } from './assets'
import { clientIp } from './client-ip'
import { gzipHtml } from './compress'
import { cookie, LOGIN_COOKIE, readCookie, SESSION_COOKIE } from './cookies'
import { tokenMatches } from './csrf'
import { withSecurityHeaders } from './headers'
import { type Chrome, createRenderer } from './render'
import { sections as registeredSections } from './sections'
import { isSecure, sessionCookie as sessionCookieFor, startSession } from './session-cookie'
import {
  type Handler,
  type PageView,
  type PortalRequest,
  type PortalResult,
  page,
  type Section,
  type Workspace,
} from './types'

// The portal's front door: static assets, sign-in and sign-out, the workspace switch, and the
// sections' pages behind a session and CSRF check. Everything here is per-request plumbing;
// pages call verbs through invoke with the signed-in user as the actor (./forms.ts).

interface CompiledRoute {
  method: string
  pattern: RegExp
  names: string[]
  handler: Handler
}

function compile(method: string, path: string, handler: Handler): CompiledRoute {
  const names: string[] = []
  const source = path
    .split('/')
    .map((seg) => {
      if (!seg.startsWith(':')) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      names.push(seg.slice(1))
      return '([^/]+)'
    })
    .join('/')
  return { method, pattern: new RegExp(`^${source}$`), names, handler }
}

/** A `next` the sign-in may go to: a path of this portal, never another site. */
export function safeNext(next: string | null | undefined): string {
  // The OAuth authorization endpoint sends the user here first and is returned to with its query.
  if (next && /^\/oauth2\/authorize\?[^#\\]*$/.test(next)) return next
  if (!next || !/^\/admin(?:[/?#]|$)/.test(next) || next.includes('//') || next.includes('\\'))
    return '/admin'
  if (/^\/admin\/(login|logout)\b/.test(next)) return '/admin'
  return next
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
const FORM_TYPES = /^(application\/x-www-form-urlencoded|multipart\/form-data)/i

export function createPortal(app: AppContext, sections: readonly Section[] = registeredSections) {
  const render = createRenderer(sections)
  const routes = sections.flatMap((s) => s.routes.map((r) => compile(r.method, r.path, r.handler)))
  const secure = isSecure(app)
  // Sign-in is an unauthenticated endpoint with its own per-IP bucket, apart from the lockout
  // (which counts failures only: services/portal-auth/login.ts).
  const loginRate = createIpLimiter(app.config.loginRatePerMinute, requestBuckets(app, 'portal-login'))

  const sessionCookie = (value: string, maxAgeMs: number) => sessionCookieFor(app, value, maxAgeMs)

  const errorPage = (status: number, heading: string, message: string) =>
    page('pages/errors/error', heading, { status, heading, message }, status)

  async function readForm(request: Request): Promise<FormData | null> {
    if (!FORM_TYPES.test(request.headers.get('content-type') ?? '')) return null
    try {
      return await request.formData()
    } catch {
      return null
    }
  }

  /**
   * A signed-in user's form. A multipart one is read as it arrives: its file input "file" (a
   * CSV import, the one form with a file) goes to the uploads directory, never whole into memory.
   */
  async function readSignedInForm(request: Request): Promise<{ form: FormData | null; upload?: Upload }> {
    if (!isMultipart(request.headers.get('content-type') ?? '')) return { form: await readForm(request) }
    const { fields, upload } = await spoolForm(
      request,
      { limit: IMPORT_LIMIT, part: 'file' },
      uploadsDir(app.config),
    )
    return { form: fields, upload }
  }

  /** The token an unsafe request carries: the X-CSRF-Token header (htmx) or the `_csrf` field. */
  function carriedToken(request: Request, form: FormData | null): string | null {
    const header = request.headers.get('x-csrf-token')
    if (header) return header
    const field = form?.get('_csrf')
    return typeof field === 'string' ? field : null
  }

  const crossSite = (request: Request) => request.headers.get('sec-fetch-site') === 'cross-site'

  /** A browser's POST names its page's origin; another host's page is a cross-site request. */
  function foreignOrigin(request: Request): boolean {
    const origin = request.headers.get('origin')
    if (!origin || origin === 'null') return origin === 'null'
    try {
      return new URL(origin).host !== (request.headers.get('host') ?? new URL(request.url).host)
    } catch {
      return true
    }
  }

  /** `/admin/x?y=1` as a query value, its slashes left readable. */
  const nextParam = (path: string) => encodeURIComponent(path).replace(/%2F/gi, '/')

  /** The chosen workspace if the user may use it, else their first (the "Default workspace"). */
  function workspaceOf(session: PortalSession, workspaces: Workspace[]): Workspace | null {
    const platform = session.user.role !== 'member'
    if (session.workspaceId === null && platform) return null
    return workspaces.find((w) => w.id === session.workspaceId) ?? workspaces[0] ?? null
  }

  async function respond(
    result: PortalResult,
    chrome: Omit<Chrome, 'flash'>,
    session: PortalSession | null,
    partial: boolean,
  ): Promise<Response> {
    if (result instanceof Response) return result
    if (result.kind === 'redirect') {
      if (result.flash && session) await setFlash(app, session.tokenHash, result.flash)
      return new Response(null, {
        status: 303,
        headers: { location: result.to, 'cache-control': 'no-store' },
      })
    }
    // A fragment (polled every second or two) must not swallow the flash meant for the next page.
    const flash: Flash | null =
      session?.pendingFlash && !result.fragment ? await takeFlash(app, session.tokenHash) : null
    const banner = chrome.req && !result.fragment ? await alertBanner(chrome.req, app.clock.now()) : null
    return render.page(result, { ...chrome, flash, banner }, partial)
  }

  function mapError(thrown: unknown, requestId: string): PageView {
    const err = thrown instanceof ServiceError ? thrown : storageFullError(thrown)
    if (!err) throw thrown
    switch (err.code) {
      case 'INSUFFICIENT_STORAGE':
        app.log.error('request failed', {
          request_id: requestId,
          error: String((thrown as Error)?.stack ?? thrown),
        })
        return errorPage(507, 'Storage full', err.message)
      case 'PAYLOAD_TOO_LARGE':
        return errorPage(413, 'Too large', err.message)
      case 'INVALID_REQUEST':
        return errorPage(400, 'Not understood', err.message)
      case 'FORBIDDEN':
        return errorPage(403, 'Not allowed', err.message)
      case 'NOT_FOUND':
        return errorPage(404, 'Not found', err.message)
      case 'VALIDATION_FAILED':
        return errorPage(422, 'Not valid', err.message)
      case 'CONFLICT':
      case 'INVALID_STATE':
        return errorPage(409, 'Not possible now', err.message)
      default:
        throw err
    }
  }

  // --- sign-in --------------------------------------------------------------------------------

  async function loginPage(
    request: Request,
    url: URL,
    form: FormData | null,
    error: string | null,
    status = 200,
    extra: Record<string, string> = {},
  ) {
    const token = randomBase62(24)
    const next = safeNext(url.searchParams.get('next') ?? (form?.get('next') as string | null))
    const email = typeof form?.get('email') === 'string' ? (form.get('email') as string) : ''
    const view = page('pages/login/index', 'Sign in', { next, email, error }, status)
    const headers: Record<string, string> = {
      ...extra,
      'set-cookie': cookie(LOGIN_COOKIE, token, { secure, maxAgeSeconds: 3600 }),
    }
    // An htmx swap that lands here (a session ended mid-page) reloads the whole page instead.
    if (request.headers.get('hx-request')) headers['hx-redirect'] = `/admin/login?next=${nextParam(next)}`
    return render.page(view, { req: null, csrf: token, flash: null, path: url.pathname }, false, headers)
  }

  async function login(received: Request, url: URL, peer: string | null): Promise<Response> {
    // The bucket first and the body after, within 64 KiB: anyone may post here.
    const ip = clientIp(received, peer, app.config.trustedProxies)
    const rate = await loginRate(ip, app.clock.now())
    if (!rate.allowed) {
      const wait = Number(rate.headers['retry-after'])
      app.log.warn('portal sign-in refused: rate limit', { ip })
      return loginPage(
        received,
        url,
        null,
        `Too many sign-in attempts from your address. Try again in ${wait} second${wait === 1 ? '' : 's'}.`,
        429,
        { 'retry-after': rate.headers['retry-after']! },
      )
    }
    let request: Request
    try {
      request = await bufferedRequest(received, ANONYMOUS_BODY_LIMIT)
    } catch (err) {
      if (!(err instanceof ServiceError) || err.code !== 'PAYLOAD_TOO_LARGE') throw err
      return render.page(
        errorPage(413, 'Form too large', 'The sign-in form is larger than a sign-in needs. Load it again.'),
        { req: null, csrf: '', flash: null, path: url.pathname },
        false,
      )
    }
    const form = await readForm(request)
    const expected = readCookie(request, LOGIN_COOKIE)
    const carried = carriedToken(request, form)
    // The form's double-submit token guards against login CSRF. A client that never loaded the
    // form (a script posting email and password) carries neither cookie nor token: it may sign
    // in unless the request comes from another site's page.
    const tokenless = !expected && !carried
    const refused = tokenless
      ? crossSite(request) || foreignOrigin(request)
      : !expected || !tokenMatches(carried, expected) || crossSite(request)
    if (refused)
      return render.page(
        errorPage(403, 'Form expired', 'The sign-in form expired or came from another site. Load it again.'),
        { req: null, csrf: '', flash: null, path: url.pathname },
        false,
      )
    const email = String(form?.get('email') ?? '')
    const password = String(form?.get('password') ?? '')
    const outcome = await attemptLogin(app, email, password, ip)
    if (!outcome.ok) {
      // A security event an operator may want to see; the password never is.
      if (outcome.reason === 'locked')
        app.log.warn('portal sign-in refused: locked', {
          email: email.slice(0, 254),
          ip,
        })
      const message =
        outcome.reason === 'locked'
          ? `Too many failed sign-ins. Try again in ${Math.max(1, Math.ceil((outcome.until - app.clock.now()) / 60000))} minutes.`
          : 'Wrong email or password.'
      return loginPage(request, url, form, message)
    }
    const identity = await loadIdentity(app.db, outcome.userId)
    const first = identity ? (await workspacesOf(app.db, identity))[0] : undefined
    const headers = new Headers({
      location: safeNext(form?.get('next') as string | null),
      'cache-control': 'no-store',
    })
    headers.append('set-cookie', await startSession(app, outcome.userId, first?.id ?? null))
    headers.append('set-cookie', cookie(LOGIN_COOKIE, '', { secure, maxAgeSeconds: 0 }))
    return new Response(null, { status: 303, headers })
  }

  // --- everything behind a session -------------------------------------------------------------

  async function signedIn(request: Request, url: URL, session: PortalSession, requestId: string) {
    const method = request.method === 'HEAD' ? 'GET' : request.method
    let read: { form: FormData | null; upload?: Upload } = { form: null }
    let unreadable: unknown = null
    if (UNSAFE.has(method))
      try {
        read = await readSignedInForm(request)
      } catch (err) {
        unreadable = err
      }
    try {
      return await signedInWith(request, url, session, requestId, method, read, unreadable)
    } finally {
      // A verb that took the upload moved it; anything left is a refusal's.
      if (read.upload) rmSync(read.upload.file, { force: true })
    }
  }

  async function signedInWith(
    request: Request,
    url: URL,
    session: PortalSession,
    requestId: string,
    method: string,
    { form, upload }: { form: FormData | null; upload?: Upload },
    unreadable: unknown,
  ) {
    const workspaces = await workspacesOf(app.db, session.user)
    const workspace = workspaceOf(session, workspaces)
    const partial = request.headers.has('hx-request') && !request.headers.has('hx-history-restore-request')
    const req: PortalRequest = {
      request,
      url,
      params: {},
      query: url.searchParams,
      form,
      upload,
      session,
      user: session.user,
      workspace,
      workspaces,
      ctx: withActor(
        app,
        userActor({
          id: session.user.id,
          role: session.user.role,
          clients: session.user.clients,
          workspace: workspace?.id ?? null,
        }),
        requestId,
      ),
      partial,
    }
    const chrome = { req, csrf: session.csrfToken, path: url.pathname }
    // A body that could not be read (too large, malformed, no room to spool it) is answered as such.
    if (unreadable) return await respond(mapError(unreadable, requestId), chrome, session, partial)

    if (UNSAFE.has(method)) {
      const carried = carriedToken(request, form)
      if (!tokenMatches(carried, session.csrfToken) || crossSite(request))
        return await respond(
          errorPage(
            403,
            'Request refused',
            'This form is missing its security token or it expired. Reload the page and try again.',
          ),
          chrome,
          session,
          partial,
        )
    }

    if (url.pathname === '/admin/logout' && method === 'POST') {
      await destroySession(app, session.tokenHash)
      const headers = new Headers({ location: '/admin/login', 'cache-control': 'no-store' })
      headers.append('set-cookie', sessionCookie('', 0))
      if (partial) headers.set('hx-redirect', '/admin/login')
      return new Response(null, { status: 303, headers })
    }
    if (url.pathname === '/admin/workspace' && method === 'POST') {
      const chosen = String(form?.get('workspace') ?? '')
      const target = chosen === '' ? null : (workspaces.find((w) => w.id === chosen) ?? undefined)
      if (target === undefined || (target === null && session.user.role === 'member'))
        return await respond(
          errorPage(403, 'Not allowed', 'That workspace is not one of yours.'),
          chrome,
          session,
          partial,
        )
      await setWorkspace(app, session.tokenHash, target?.id ?? null)
      return await respond(
        {
          kind: 'redirect',
          to: safeNext(form?.get('next') as string | null),
          flash: { kind: 'info', message: `Now working in ${target?.name ?? 'all workspaces'}.` },
        },
        chrome,
        session,
        partial,
      )
    }

    let matchedPath = false
    for (const route of routes) {
      const m = route.pattern.exec(url.pathname)
      if (!m) continue
      matchedPath = true
      if (route.method !== method) continue
      const params: Record<string, string> = {}
      route.names.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1]!)
      })
      let result: PortalResult
      try {
        result = await route.handler({ ...req, params })
      } catch (err) {
        result = mapError(err, requestId)
      }
      return await respond(result, chrome, session, partial)
    }
    if (matchedPath)
      return await respond(
        errorPage(405, 'Not allowed', `${method} is not used on this page.`),
        chrome,
        session,
        partial,
      )
    return await respond(
      errorPage(404, 'Not found', 'There is no page at this address.'),
      chrome,
      session,
      partial,
    )
  }

  async function dispatch(request: Request, peer: string | null, requestId: string): Promise<Response> {
    const url = new URL(request.url)
    const path = url.pathname
    if (path.startsWith('/admin/static/')) {
      const asset = assetResponse(
        path.slice('/admin/static/'.length),
        url.searchParams.get('v'),
        request.headers.get('accept-encoding'),
      )
      if (asset) return asset
      return new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain' } })
    }
    // `/admin/api-keys/` is `/admin/api-keys`.
    if (path.endsWith('/') && request.method === 'GET')
      return new Response(null, { status: 303, headers: { location: path.replace(/\/+$/, '') + url.search } })
    const token = readCookie(request, SESSION_COOKIE)
    const session = token ? await resolveSession(app, token) : null

    if (path === '/admin/login') {
      if (request.method === 'POST') return await login(request, url, peer)
      if (session)
        return new Response(null, {
          status: 303,
          headers: { location: safeNext(url.searchParams.get('next')) },
        })
      return loginPage(request, url, null, null)
    }
    if (!session) {
      const headers = new Headers({
        location: `/admin/login?next=${nextParam(path + url.search)}`,
        'cache-control': 'no-store',
      })
      // A stale cookie is cleared so the browser stops sending it.
      if (token) headers.append('set-cookie', sessionCookie('', 0))
      return new Response(null, { status: 303, headers })
    }
    return await signedIn(request, url, session, requestId)
  }

  return {
    async handle(request: Request, peer: string | null, requestId: string): Promise<Response> {
      return gzipHtml(request, withSecurityHeaders(await dispatch(request, peer, requestId)))
    },
  }
}

export type Portal = ReturnType<typeof createPortal>
