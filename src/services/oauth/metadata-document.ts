import type { AppContext } from '../../context'
import { oauthClients } from '../../db/schema'
import { OAUTH_SCOPES } from '../../lib/scopes'
import { pinnedRequest } from '../../webhooks/attempt'
import { checkTarget, hostResolver } from '../../webhooks/ssrf'
import { redirectUriProblem } from './redirect-uris'

// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document; DESIGN §5): a
// client with no registration names itself by an https URL, and the JSON document at that URL
// names its redirect URIs. Herald fetches it at the authorization request (through the webhook
// SSRF guard: public addresses only, the connection pinned to the address checked, no
// redirects, 5 s, 64 KiB) and keeps it as a public client whose id is the URL, so the token
// endpoint finds it without fetching again. HERALD_WEBHOOK_ALLOW_PRIVATE=1 (development) also
// allows http:// and private addresses, as for webhooks.

const FETCH_TIMEOUT_MS = 5000
const DOCUMENT_LIMIT = 64 * 1024

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

async function fetchDocument(app: AppContext, url: string): Promise<unknown> {
  const allowPrivate = app.config.webhookAllowPrivate
  const checked = await checkTarget(url, allowPrivate, hostResolver(app.config.dnsServers))
  if ('problem' in checked) throw new Error(`its address ${checked.problem}`)
  const { target } = checked
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), FETCH_TIMEOUT_MS)
  try {
    const address = target.addresses[0]
    const pinned = address ? pinnedRequest(target, address) : null
    const res = await fetch(pinned?.url ?? target.url.href, {
      headers: { accept: 'application/json', ...(pinned ? { host: pinned.host } : {}) },
      redirect: 'manual',
      signal: controller.signal,
      ...(pinned && target.url.protocol === 'https:' ? { tls: { serverName: pinned.serverName } } : {}),
    })
    if (res.status !== 200) throw new Error(`it answered ${res.status}`)
    const body = new Uint8Array(await res.arrayBuffer())
    if (body.byteLength > DOCUMENT_LIMIT) throw new Error('the document is larger than 64 KiB')
    return JSON.parse(new TextDecoder().decode(body))
  } catch (err) {
    if (controller.signal.aborted) throw new Error(`it did not answer within ${FETCH_TIMEOUT_MS / 1000} s`)
    if (err instanceof SyntaxError) throw new Error('the document is not JSON')
    throw err
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Fetches and checks the document of `clientId` and stores it as a client; null on success,
 * else what is wrong (shown to the user: there is no redirect URI to trust yet).
 */
export async function loadMetadataClient(app: AppContext, clientId: string): Promise<string | null> {
  const problem = clientIdProblem(clientId, app.config.webhookAllowPrivate)
  if (problem) return `The client_id URL ${problem}.`
  let doc: Record<string, unknown>
  try {
    const parsed = await fetchDocument(app, clientId)
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('it is not a JSON object')
    doc = parsed as Record<string, unknown>
  } catch (err) {
    return `The application's metadata document could not be used: ${(err as Error).message}.`
  }
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
  const name =
    typeof doc.client_name === 'string' && doc.client_name.trim()
      ? doc.client_name.trim().slice(0, 200)
      : new URL(clientId).host
  let scopes: string[] = [...OAUTH_SCOPES]
  if (typeof doc.scope === 'string' && doc.scope.trim())
    scopes = doc.scope
      .trim()
      .split(/\s+/)
      .filter((s) => (OAUTH_SCOPES as readonly string[]).includes(s))
  const values = { name, redirectUris: uris as string[], scopes }
  app.db
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
    .run()
  return null
}
