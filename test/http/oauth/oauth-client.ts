import { createHash, randomBytes } from 'node:crypto'
import { BASE } from '../../helpers/app'
import type { Browser, Handle } from '../admin/portal-helpers'

// Raw OAuth requests for the tests, over real HTTP: PKCE (S256), the authorization request, the
// consent form posted as the signed-in portal user, and the token endpoint. Raw on purpose, to
// send what a conforming client never would (plain PKCE, reused codes, bad bodies);
// oauth4webapi.test.ts drives the same server with a standards-checking client library.

export function pkce() {
  const verifier = randomBytes(48).toString('base64url')
  const challenge = createHash('sha256').update(verifier).digest('base64url')
  return { verifier, challenge }
}

/** The portal helpers' browser, sending its requests to the listening server instead of in-process. */
export function overHttp(base: string): Handle {
  return async (r: Request) => {
    const u = new URL(r.url)
    const body = r.method === 'GET' || r.method === 'HEAD' ? undefined : await r.arrayBuffer()
    return fetch(`${base}${u.pathname}${u.search}`, {
      method: r.method,
      headers: r.headers,
      body,
      redirect: 'manual',
    })
  }
}

export async function form(
  base: string,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields),
  })
  const text = await res.text()
  let body: Record<string, unknown> = {}
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: res.status, headers: res.headers, body, text }
}

export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`

/** Attributes of the consent page's form: its action and fields. */
export function consentForm(html: string) {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&') ?? ''
  const workspaces = [...html.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]!)
  const scopes = [...html.matchAll(/name="scope" value="([^"]+)"/g)].map((m) => m[1]!)
  const decisions = [...html.matchAll(/name="decision" value="([^"]+)"/g)].map((m) => m[1]!)
  const hasWorkspaceSelect = /<select id="client_id" name="client_id">/.test(html)
  return { action, workspaces, scopes, decisions, hasWorkspaceSelect }
}

/** The back channel of the code flow: the code and its PKCE verifier for tokens (`fields` override). */
export function exchangeCode(
  base: string,
  o: { code: string; verifier: string; redirectUri: string; clientId: string },
  fields: Record<string, string> = {},
) {
  return form(base, '/oauth2/token', {
    grant_type: 'authorization_code',
    code: o.code,
    redirect_uri: o.redirectUri,
    code_verifier: o.verifier,
    client_id: o.clientId,
    ...fields,
  })
}

/** The query of a code-flow authorization request with an S256 PKCE challenge. */
export function authorizeQuery(o: {
  clientId: string
  redirectUri: string
  scope: string
  challenge: string
  state?: string
}): URLSearchParams {
  return new URLSearchParams({
    response_type: 'code',
    client_id: o.clientId,
    redirect_uri: o.redirectUri,
    scope: o.scope,
    ...(o.state === undefined ? {} : { state: o.state }),
    code_challenge: o.challenge,
    code_challenge_method: 'S256',
  })
}

/**
 * The whole front channel: authorize as the signed-in `user`, allow with `workspace` and the
 * given scopes (all offered by default), and return the code from the redirect.
 */
export async function authorizeAs(
  user: Browser,
  params: { clientId: string; redirectUri: string; scope: string; challenge: string; state?: string },
  consent: { workspace: string; scopes?: string[]; decision?: 'allow' | 'deny' },
) {
  const q = authorizeQuery({ ...params, state: params.state ?? 'st-1' })
  const page = await user.get(`/oauth2/authorize?${q}`)
  if (page.status !== 200)
    throw new Error(`consent page: ${page.status} ${page.location ?? page.text.slice(0, 200)}`)
  const f = consentForm(page.text)
  user.csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? ''
  const answer = await user.post(f.action, {
    client_id: consent.workspace,
    scope: consent.scopes ?? f.scopes,
    decision: consent.decision ?? 'allow',
  })
  if (answer.status !== 303 || !answer.location)
    throw new Error(`consent post: ${answer.status} ${answer.text.slice(0, 300)}`)
  const redirect = new URL(answer.location)
  return { redirect, code: redirect.searchParams.get('code'), page: f }
}

export { BASE }
