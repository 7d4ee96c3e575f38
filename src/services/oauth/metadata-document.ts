import type { AppContext } from '../../context'
import { oauthClients } from '../../db/schema'
import { BodyTooLarge, readCappedBody } from '../../lib/capped-body'
import { OAUTH_SCOPES } from '../../lib/scopes'
import { DAY_MS } from '../../lib/time'
import { NAME_PATTERN } from '../../lib/validate'
import { pinnedRequest } from '../../webhooks/attempt'
import { checkTarget, hostResolver } from '../../webhooks/ssrf'
import { redirectUriProblem } from './redirect-uris'

// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client with
// no registration names itself by an https URL, and the JSON document at that URL names its
// redirect URIs. Herald fetches it at the authorization request (through the webhook SSRF guard:
// public addresses only, the connection pinned to the address checked, no redirects, 5 s, at most
// 64 KiB read) and keeps it as a public client whose id is the URL, so the token endpoint finds
// it without fetching again. HERALD_WEBHOOK_ALLOW_PRIVATE=1 (development) also allows http:// and
// private addresses, as for webhooks.
//
// Anyone can name any URL, so fetching is bounded: the outcome (the document's checks passed, or
// why not) is remembered per URL for its Cache-Control max-age clamped to 1 min .. 24 h (10 min
// when it names none; a failure for 1 min), so repeated requests neither refetch nor rewrite the
// row; concurrent requests for one URL share one fetch; and a fetch the cache cannot answer must
// first be admitted by the caller's rate limit (`mayFetch`).

const FETCH_TIMEOUT_MS = 5000
const NAME_RE = new RegExp(NAME_PATTERN)
const DOCUMENT_LIMIT = 64 * 1024
const CACHE_MIN_MS = 60_000
const CACHE_MAX_MS = DAY_MS
const CACHE_DEFAULT_MS = 10 * 60_000
const CACHE_ENTRIES = 1000

export const isMetadataClientId = (clientId: string) => /^https?:\/\//i.test(clientId)

/** Why a client_id URL cannot name a metadata document, or null. */
function clientIdProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'is not a URL'
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return 'must be an https URL'
  if (url.hash || raw.includes('#')) return 'must not have a fragment'
  if (url.username || url.password) return 'must not contain credentials'
  if (url.pathname === '/' || url.pathname === '') return 'must have a path'
  if (/\/\.\.?(\/|$)/.test(url.pathname)) return 'must not contain . or .. segments'
  if (url.href !== raw) return 'must be in its normal form'
  return null
}

/** How long a fetched document may be trusted: its max-age within the bounds. */
function cacheLifetime(cacheControl: string | null): number {
  if (cacheControl === null) return CACHE_DEFAULT_MS
  if (/(^|,)\s*(no-store|no-cache)\b/i.test(cacheControl)) return CACHE_MIN_MS
  const maxAge = /(^|,)\s*max-age\s*=\s*"?(\d+)/i.exec(cacheControl)?.[2]
  if (maxAge === undefined) return CACHE_DEFAULT_MS
  return Math.min(CACHE_MAX_MS, Math.max(CACHE_MIN_MS, Number(maxAge) * 1000))
}

async function fetchDocument(app: AppContext, url: string): Promise<{ doc: unknown; lifetime: number }> {
  const allowPrivate = app.config.webhookAllowPrivate
  const checked = await checkTarget(url, allowPrivate, hostResolver(app.config.dnsServers))
  if ('problem' in checked) throw new Error(`its address ${checked.problem}`)
  const { target } = checked
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, FETCH_TIMEOUT_MS)
  try {
    const address = target.addresses[0]
    const pinned = address ? pinnedRequest(target, address) : null
    const res = await fetch(pinned?.url ?? target.url.href, {
      headers: { accept: 'application/json', ...(pinned ? { host: pinned.host } : {}) },
      redirect: 'manual',
      signal: controller.signal,
      ...(pinned && target.url.protocol === 'https:' ? { tls: { serverName: pinned.serverName } } : {}),
    })
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => {})
      throw new Error(`it answered ${res.status}`)
    }
    const body = await readCappedBody(res, DOCUMENT_LIMIT)
    return {
      doc: JSON.parse(new TextDecoder().decode(body)),
      lifetime: cacheLifetime(res.headers.get('cache-control')),
    }
  } catch (err) {
    if (timedOut) throw new Error(`it did not answer within ${FETCH_TIMEOUT_MS / 1000} s`)
    if (err instanceof BodyTooLarge) throw new Error('the document is larger than 64 KiB')
    if (err instanceof SyntaxError) throw new Error('the document is not JSON')
    throw err
  } finally {
    clearTimeout(timer)
    // Whatever is left of the answer (a refused or cut body) is not read: the connection goes.
    controller.abort()
  }
}

/** What the authorization request may do with a metadata client_id. */
export type MetadataOutcome =
  | { ok: true }
  /** Shown to the user: there is no redirect URI to trust yet. */
  | { ok: false; problem: string }
  /** A fetch was needed and the rate limit refused it: retry after this many seconds. */
  | { ok: false; retryAfter: string }

interface Remembered {
  until: number
  problem: string | null
}

const caches = new WeakMap<
  AppContext,
  { done: Map<string, Remembered>; pending: Map<string, Promise<Remembered>> }
>()

function cacheOf(app: AppContext) {
  let cache = caches.get(app)
  if (!cache) {
    cache = { done: new Map(), pending: new Map() }
    caches.set(app, cache)
  }
  return cache
}

/**
 * The metadata client `clientId` names, fetched and stored when no remembered outcome answers;
 * `mayFetch` is asked before each fetch and returns a Retry-After (seconds) to refuse it.
 */
export async function loadMetadataClient(
  app: AppContext,
  clientId: string,
  mayFetch: () => string | null,
): Promise<MetadataOutcome> {
  const problem = clientIdProblem(clientId, app.config.webhookAllowPrivate)
  if (problem) return { ok: false, problem: `The client_id URL ${problem}.` }
  const cache = cacheOf(app)
  let outcome = cache.done.get(clientId)
  if (!outcome || outcome.until <= app.clock.now()) {
    let pending = cache.pending.get(clientId)
    if (!pending) {
      const retryAfter = mayFetch()
      if (retryAfter !== null) return { ok: false, retryAfter }
      pending = fetchAndStore(app, clientId).finally(() => cache.pending.delete(clientId))
      cache.pending.set(clientId, pending)
    }
    outcome = await pending
    cache.done.delete(clientId)
    // Oldest first out: the map stays bounded whatever URLs are named.
    if (cache.done.size >= CACHE_ENTRIES) cache.done.delete(cache.done.keys().next().value as string)
    cache.done.set(clientId, outcome)
  }
  return outcome.problem === null ? { ok: true } : { ok: false, problem: outcome.problem }
}

async function fetchAndStore(app: AppContext, clientId: string): Promise<Remembered> {
  let fetched: { doc: unknown; lifetime: number }
  try {
    fetched = await fetchDocument(app, clientId)
  } catch (err) {
    return failed(app, `The application's metadata document could not be used: ${(err as Error).message}.`)
  }
  const problem = await storeDocument(app, clientId, fetched.doc)
  return problem === null ? { until: app.clock.now() + fetched.lifetime, problem } : failed(app, problem)
}

const failed = (app: AppContext, problem: string): Remembered => ({
  until: app.clock.now() + CACHE_MIN_MS,
  problem,
})

/** Checks a fetched document and stores it as a client; null on success, else what is wrong. */
async function storeDocument(app: AppContext, clientId: string, parsed: unknown): Promise<string | null> {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return "The application's metadata document could not be used: it is not a JSON object."
  const doc = parsed as Record<string, unknown>
  if (doc.client_id !== clientId) return "The application's metadata document names another client_id."
  const uris = doc.redirect_uris
  if (
    !Array.isArray(uris) ||
    uris.length === 0 ||
    uris.length > 20 ||
    uris.some((u) => typeof u !== 'string')
  )
    return "The application's metadata document has no redirect_uris."
  if ((uris as string[]).some((u) => redirectUriProblem(u) !== null))
    return "The application's metadata document lists a redirect URI that is neither https:// nor loopback http://."
  const method = doc.token_endpoint_auth_method ?? 'none'
  if (method !== 'none')
    return 'Only public clients (token_endpoint_auth_method "none") may use a metadata document.'
  // A name as dynamic registration takes it (one line, something visible), else the host: the
  // document is anyone's, and U+0000 would fail PostgreSQL's write.
  const given = typeof doc.client_name === 'string' ? doc.client_name.trim().slice(0, 200).toWellFormed() : ''
  const name = NAME_RE.test(given) ? given : new URL(clientId).host
  let scopes: string[] = [...OAUTH_SCOPES]
  if (typeof doc.scope === 'string' && doc.scope.trim())
    scopes = doc.scope
      .trim()
      .split(/\s+/)
      .filter((s) => (OAUTH_SCOPES as readonly string[]).includes(s))
  const values = { name, redirectUris: uris as string[], scopes }
  await app.db
    .insert(oauthClients)
    .values({
      id: clientId,
      ...values,
      clientId: null,
      confidential: false,
      secretHash: null,
      source: 'metadata',
      createdAt: app.clock.now(),
    })
    // A document that changed (new redirect URIs) takes effect; a deleted client stays deleted.
    .onConflictDoUpdate({ target: oauthClients.id, set: values })
  return null
}
