import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { preferencesPath } from '../../lib/tracking-token'
import { recordClick, recordOpen, unsubscribeViaMessage } from '../../services/messages/activity'
import { footerOf } from '../../services/sending-profiles/footer'
import { resolveLinkToken, resolvePreviewToken, trackingKeyOf } from '../../services/tracking/resolve'
import { readLimited } from '../middleware/body'
import { handled } from '../rest/envelope'
import { errorBody, jsonResponse } from '../rest/respond'
import { escapeHtml, htmlResponse, publicPage } from './layout'

// The links inside messages: open pixel, click redirect, unsubscribe page and RFC 8058
// one-click POST. They carry no credential: the signed token is the authority, and a token
// that does not verify for its message's client is 404 like any unknown path. They are not API
// operations, so /openapi.json leaves them out (detail.hide).

const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64')
const NO_STORE = { 'cache-control': 'no-store, private' }

// Every answer on these routes: nothing may frame it (a framed unsubscribe button is a
// clickjacking target), the token in its URL never leaves in a Referer, no type sniffing. The
// pixel, the redirect and the errors need nothing else; the pages need their one inline style
// (allowed by its hash, no 'unsafe-inline') and a form that posts back to Herald.
const LOCKED_DOWN = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
const LINK_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': LOCKED_DOWN,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}

/** What a template preview's unsubscribe link opens, by GET or POST: nothing is changed. */
const PREVIEW_PAGE = publicPage({
  title: 'Unsubscribe (preview)',
  body: '<h1>Unsubscribe (preview)</h1><p>This is a template preview. In a sent message this link opens the unsubscribe page for its recipient; here nothing was changed and no one was unsubscribed.</p>',
})

export function trackingPlugin(app: AppContext) {
  const html = htmlResponse

  /**
   * A handler in the HTTP envelope (request id, error mapping, access log), given its token; its
   * answer gets the link headers it did not set itself.
   */
  const route =
    (fn: (token: string, request: Request, requestId: string) => Response | Promise<Response>) =>
    (c: { params: Record<string, string>; request: Request; route?: string }) =>
      handled(app, { request: c.request, route: c.route }, async (meta) => {
        const response = await fn(c.params.token ?? '', c.request, meta.requestId)
        for (const name in LINK_HEADERS)
          if (!response.headers.has(name)) response.headers.set(name, LINK_HEADERS[name]!)
        return response
      })
  const notFound = (requestId: string) =>
    jsonResponse(404, errorBody('NOT_FOUND', 'No such link', requestId), NO_STORE)

  return new Elysia({ name: 'herald-tracking' })
    .get(
      '/t/o/:token',
      route(async (token, request, requestId) => {
        const found = await resolveLinkToken(app, token, 'open')
        if (!found) return notFound(requestId)
        await recordOpen(app, found.message, request.headers.get('user-agent'), app.clock.now())
        return new Response(PIXEL, { headers: { 'content-type': 'image/gif', ...NO_STORE } })
      }),
      { parse: 'none', detail: { hide: true } },
    )
    .get(
      '/t/c/:token',
      route(async (token, request, requestId) => {
        const found = await resolveLinkToken(app, token, 'click')
        if (!found) return notFound(requestId)
        await recordClick(app, found.message, found.url!, request.headers.get('user-agent'), app.clock.now())
        return new Response(null, { status: 302, headers: { location: found.url!, ...NO_STORE } })
      }),
      { parse: 'none', detail: { hide: true } },
    )
    .get(
      '/u/:token',
      route(async (token, _request, requestId) => {
        if (resolvePreviewToken(app, token)) return html(200, PREVIEW_PAGE)
        const found = await resolveLinkToken(app, token, 'unsubscribe')
        if (!found) return notFound(requestId)
        const m = found.message
        const from = await footerOf(app.db, m.clientId)
        const preferences = escapeHtml(
          app.config.publicUrl + preferencesPath(trackingKeyOf(app), m.clientId, m.contactId),
        )
        return html(
          200,
          publicPage({
            title: 'Unsubscribe',
            body: `<h1>Unsubscribe</h1><p>Stop receiving these messages${from.company ? ` from ${escapeHtml(from.company)}` : ''}?</p><form method="post"><button type="submit">Unsubscribe</button></form><p><a href="${preferences}">Manage your preferences instead</a></p>`,
            from,
          }),
        )
      }),
      { parse: 'none', detail: { hide: true } },
    )
    .post(
      '/u/:token',
      route(async (token, request, requestId) => {
        if (resolvePreviewToken(app, token)) {
          // A preview's link: the one-click POST gets 200 like a real one, and nothing changes.
          return html(200, PREVIEW_PAGE)
        }
        const found = await resolveLinkToken(app, token, 'unsubscribe')
        if (!found) return notFound(requestId)
        // RFC 8058: mail clients POST "List-Unsubscribe=One-Click"; the page's button posts nothing.
        // Neither comes near 4 KiB: a larger body is 413, changes nothing, and is not read.
        const body = new TextDecoder().decode(await readLimited(request, 4096))
        const oneClick = /(^|&)List-Unsubscribe=One-Click(&|$)/.test(body)
        await unsubscribeViaMessage(
          app,
          found.message,
          oneClick ? 'one_click' : 'unsubscribe_page',
          app.clock.now(),
        )
        if (oneClick) return new Response(null, { status: 200, headers: NO_STORE })
        return html(
          200,
          publicPage({
            title: 'Unsubscribed',
            body: `<h1>You are unsubscribed</h1><p>${escapeHtml(found.message.to)} will not receive these messages any more.</p>`,
            from: await footerOf(app.db, found.message.clientId),
          }),
        )
      }),
      { parse: 'none', detail: { hide: true } },
    )
}
