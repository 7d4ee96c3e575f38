import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { preferencesPath } from '../../lib/tracking-token'
import { issueNonce, nonceValid } from '../../services/preferences/nonce'
import { preferenceListsOf } from '../../services/preferences/read'
import { savePreferences } from '../../services/preferences/save'
import { resolvePreferencesToken } from '../../services/preferences/token'
import { footerOf } from '../../services/sending-profiles/footer'
import { resolvePreviewToken, trackingKeyOf } from '../../services/tracking/resolve'
import { clientIp } from '../admin/client-ip'
import { readLimited } from '../middleware/body'
import { handled } from '../rest/envelope'
import { htmlResponse } from './layout'
import { NOT_FOUND_PAGE, PREVIEW_PAGE, preferencesForm, STALE_FORM_PAGE, savedPage } from './preferences-page'

// The preference centre, `/p/{token}`: a person's public lists, name and "unsubscribe from
// everything". The signed token in the path is the authority (no session); the POST must carry
// the nonce its page was rendered with (services/preferences/nonce.ts). Not an API operation.

/** Two names and a few hundred list ids fit well within this; more is 413 and changes nothing. */
const MAX_BODY = 16 * 1024
const NAME_MAX = 200

type Ctx = {
  route?: string
  params: Record<string, string>
  request: Request
  server: { requestIP(r: Request): { address: string } | null } | null
}

// C0 and C1 controls and DEL: what the API refuses in a name. A text field of a browser sends
// none; a crafted POST may (U+0000 would fail PostgreSQL's write).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g

/**
 * A submitted name: control characters dropped, trimmed, empty is none, cut to the API's bound
 * (a surrogate pair the cut splits becomes U+FFFD, as a text column would store it). Absent:
 * unchanged.
 */
const nameOf = (form: URLSearchParams, name: string) => {
  if (!form.has(name)) return undefined
  const v = (form.get(name) ?? '').replace(CONTROLS, '').trim().slice(0, NAME_MAX).toWellFormed()
  return v === '' ? null : v
}

export function preferencesPlugin(app: AppContext) {
  const key = () => trackingKeyOf(app)
  const route = (fn: (c: Ctx, token: string) => Response | Promise<Response>) => (c: Ctx) =>
    handled(app, { request: c.request, route: c.route }, () => fn(c, c.params.token ?? ''))

  return new Elysia({ name: 'herald-preferences' })
    .get(
      '/p/:token',
      route(async (_c, token) => {
        if (resolvePreviewToken(app, token, 'preview_preferences')) return htmlResponse(200, PREVIEW_PAGE)
        const contact = await resolvePreferencesToken(app, token)
        if (!contact) return htmlResponse(404, NOT_FOUND_PAGE)
        const nonce = issueNonce(key(), contact.id, app.clock.now())
        return htmlResponse(
          200,
          preferencesForm(
            contact,
            await preferenceListsOf(app.db, contact),
            nonce,
            await footerOf(app.db, contact.clientId),
          ),
        )
      }),
      { parse: 'none', detail: { hide: true } },
    )
    .post(
      '/p/:token',
      route(async (c, token) => {
        if (resolvePreviewToken(app, token, 'preview_preferences')) return htmlResponse(200, PREVIEW_PAGE)
        const contact = await resolvePreferencesToken(app, token)
        if (!contact) return htmlResponse(404, NOT_FOUND_PAGE)
        const form = new URLSearchParams(new TextDecoder().decode(await readLimited(c.request, MAX_BODY)))
        const now = app.clock.now()
        const from = await footerOf(app.db, contact.clientId)
        const again = app.config.publicUrl + preferencesPath(key(), contact.clientId, contact.id)
        if (!nonceValid(key(), contact.id, form.get('nonce'), now))
          return htmlResponse(403, STALE_FORM_PAGE(again, from))
        const everything = form.get('unsubscribe_all') === '1'
        await savePreferences(
          app,
          contact.id,
          {
            firstName: nameOf(form, 'first_name'),
            lastName: nameOf(form, 'last_name'),
            listIds: new Set(form.getAll('list')),
            everything,
          },
          {
            ip: clientIp(
              c.request,
              c.server?.requestIP(c.request)?.address ?? null,
              app.config.trustedProxies,
            ),
            userAgent: c.request.headers.get('user-agent'),
          },
          now,
        )
        return htmlResponse(200, savedPage(everything, again, from))
      }),
      { parse: 'none', detail: { hide: true } },
    )
}
