import { withActor } from '../../../src/context'
import type { PortalRole } from '../../../src/services/actors/actor'
import { systemActor } from '../../../src/services/actors/actor'
import { createUserVerb } from '../../../src/services/users/verbs'
import { invoke } from '../../../src/services/verbs/invoke'
import { BASE, type TestApp } from '../../helpers/app'

// Driving the portal in-process like a browser without JavaScript: cookies kept, forms posted
// as application/x-www-form-urlencoded with the session's CSRF token.

export const OWNER_PASSWORD = 'owner-password-123'
/**
 * Pass to createTestApp so the bootstrap owner's password is known. Tests sign in from
 * 127.0.0.1 many times a minute of a clock that stands still: the per-IP sign-in bucket (20/min
 * by default, DESIGN §5) is raised out of their way; test/http/admin/login-rate.test.ts tests it.
 */
export const LOGIN_RATE_ENV = { HERALD_LOGIN_RATE_PER_MINUTE: '100000' }
export const PORTAL_ENV = { HERALD_ADMIN_PASSWORD: OWNER_PASSWORD, ...LOGIN_RATE_ENV }

export interface PortalAnswer {
  status: number
  headers: Headers
  location: string | null
  text: string
}

export interface Browser {
  cookies: Map<string, string>
  csrf: string
  get(path: string, headers?: Record<string, string>): Promise<PortalAnswer>
  /** Posts a form; `_csrf` is added unless given (pass `_csrf: null` to leave it out). */
  post(
    path: string,
    fields?: Record<string, string | string[] | null>,
    headers?: Record<string, string>,
  ): Promise<PortalAnswer>
}

/** Answers a request: the app by default, or a portal built with test sections. */
export type Handle = (request: Request) => Promise<Response>

export function browser(t: TestApp, handle: Handle = (r) => t.app.handle(r)): Browser {
  const cookies = new Map<string, string>()
  const b: Browser = {
    cookies,
    csrf: '',
    async get(path, headers = {}) {
      return send(
        handle,
        cookies,
        new Request(BASE + path, { headers: { ...headers, cookie: cookieHeader(cookies) } }),
      )
    },
    async post(path, fields = {}, headers = {}) {
      const body = new URLSearchParams()
      const all = { _csrf: b.csrf, ...fields }
      for (const [name, value] of Object.entries(all)) {
        if (value === null) continue
        for (const v of Array.isArray(value) ? value : [value]) body.append(name, v)
      }
      return send(
        handle,
        cookies,
        new Request(BASE + path, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            ...headers,
            cookie: cookieHeader(cookies),
          },
          body,
        }),
      )
    },
  }
  return b
}

const cookieHeader = (cookies: Map<string, string>) => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ')

async function send(handle: Handle, cookies: Map<string, string>, request: Request): Promise<PortalAnswer> {
  const res = await handle(request)
  for (const c of res.headers.getSetCookie()) {
    const [pair, ...attrs] = c.split(';')
    const eq = pair!.indexOf('=')
    const name = pair!.slice(0, eq)
    const value = pair!.slice(eq + 1)
    if (attrs.some((a) => a.trim() === 'Max-Age=0') || value === '') cookies.delete(name)
    else cookies.set(name, value)
  }
  return {
    status: res.status,
    headers: res.headers,
    location: res.headers.get('location'),
    text: await res.text(),
  }
}

export const csrfOf = (html: string) => /<meta name="csrf-token" content="([^"]*)"/.exec(html)?.[1] ?? ''

/** Opens the sign-in form and submits it; returns the answer to the POST. */
export async function submitLogin(
  b: Browser,
  email: string,
  password: string,
  extra: Record<string, string> = {},
): Promise<PortalAnswer> {
  const form = await b.get('/admin/login')
  b.csrf = csrfOf(form.text)
  return b.post('/admin/login', { email, password, ...extra })
}

/** A signed-in browser (the bootstrap owner unless another user is given). */
export async function signIn(
  t: TestApp,
  user: { email: string; password: string } = { email: 'admin@localhost', password: OWNER_PASSWORD },
  handle?: Handle,
): Promise<Browser> {
  const b = browser(t, handle)
  const res = await submitLogin(b, user.email, user.password)
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${res.text.slice(0, 200)}`)
  const home = await b.get('/admin')
  b.csrf = csrfOf(home.text)
  return b
}

/** One signed-in owner per test file, made on first use (a sign-in costs a password hash). */
export function lazyOwner(t: TestApp): () => Promise<Browser> {
  let owner: Browser | undefined
  return async () => {
    owner ??= await signIn(t)
    return owner
  }
}

/** The id at the end of a redirect's Location (`/admin/lists/<id>`). */
export const idFrom = (location: string | null) => location?.split('/').pop() ?? ''

let n = 0
/** A portal user created through the users verb as the console would. */
export async function makeUser(
  t: TestApp,
  options: { role: PortalRole; clients?: string[]; email?: string },
): Promise<{ id: string; email: string; password: string }> {
  const email = options.email ?? `user${++n}-${options.role}@example.com`
  const password = `pw-${options.role}-0123456789`
  const ctx = withActor(t.ctx, systemActor('test'), 'test')
  const created = await invoke(createUserVerb, ctx, {
    email,
    password,
    role: options.role,
    clients: options.clients,
  })
  return { id: created.id, email, password }
}
