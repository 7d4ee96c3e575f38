import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { ServiceError } from '../../errors'
import { confirmByToken } from '../../services/forms/confirm'
import { echoValues } from '../../services/forms/submission'
import { findActiveForm, submitForm } from '../../services/forms/submit'
import { requestBuckets } from '../../services/limits/request-buckets'
import { footerOf } from '../../services/sending-profiles/footer'
import { clientIp } from '../admin/client-ip'
import { ANONYMOUS_BODY_LIMIT, bufferedRequest, parseJson, readLimited } from '../middleware/body'
import { createKeyedIpLimiter } from '../middleware/rate-limit'
import { handled } from '../rest/envelope'
import { errorBody, errorResponse, jsonResponse } from '../rest/respond'
import { confirmedPage, formPage, formPageCsp, NOT_FOUND_PAGE, TOO_MANY_PAGE, thanksPage } from './form-pages'
import { htmlResponse } from './layout'

// A signup form's public doors, no credential: the hosted page, the POST a page or an embed
// sends (form-encoded, answered with pages and redirects) or a site's script sends (JSON with
// CORS, answered with JSON), the thank-you page and the confirmation link. Not API operations,
// so /openapi.json leaves them out (detail.hide).

/** Submissions per IP per form per minute. */
const PER_IP_PER_FORM_MINUTE = 10
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'content-type',
  'access-control-max-age': '86400',
}
const NO_STORE = { 'cache-control': 'no-store, private' }

type Ctx = {
  route?: string
  params: Record<string, string>
  request: Request
  server: { requestIP(r: Request): { address: string } | null } | null
}

const isFormPost = (type: string | null) =>
  /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test((type ?? '').trim())

async function formBody(request: Request): Promise<Record<string, unknown>> {
  const data = await (await bufferedRequest(request, ANONYMOUS_BODY_LIMIT)).formData()
  const out: Record<string, unknown> = {}
  data.forEach((v, k) => {
    if (typeof v === 'string') out[k] = v
  })
  return out
}

export function formsPlugin(app: AppContext) {
  const take = createKeyedIpLimiter(PER_IP_PER_FORM_MINUTE, requestBuckets(app, 'form'))
  const ipOf = (c: Ctx) =>
    clientIp(c.request, c.server?.requestIP(c.request)?.address ?? null, app.config.trustedProxies)
  const notFound = () => htmlResponse(404, NOT_FOUND_PAGE)

  /** One POST, form-encoded or JSON; `cors` is added to every JSON answer, errors included. */
  async function post(c: Ctx, requestId: string): Promise<Response> {
    const json = !isFormPost(c.request.headers.get('content-type'))
    const form = await findActiveForm(app, c.params.id ?? '')
    if (!form)
      return json ? jsonResponse(404, errorBody('NOT_FOUND', 'No such form', requestId), CORS) : notFound()
    const rate = await take(ipOf(c), form.id, app.clock.now())
    if (!rate.allowed)
      return json
        ? jsonResponse(
            429,
            errorBody(
              'RATE_LIMITED',
              `Too many submissions; retry in ${rate.headers['retry-after']} s`,
              requestId,
            ),
            { ...rate.headers, ...CORS },
          )
        : htmlResponse(429, TOO_MANY_PAGE, rate.headers)
    const body = json
      ? parseJson(await readLimited(c.request, ANONYMOUS_BODY_LIMIT), c.request.headers.get('content-type'))
      : await formBody(c.request)
    const fields =
      body !== null && typeof body === 'object' && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : {}
    const who = { body: fields, ip: ipOf(c), userAgent: c.request.headers.get('user-agent') }
    if (json) {
      const status = await submitForm(app, form, who)
      return jsonResponse(200, JSON.stringify({ data: { status } }), { ...CORS, ...NO_STORE })
    }
    try {
      await submitForm(app, form, who)
    } catch (err) {
      if (!(err instanceof ServiceError) || err.code !== 'VALIDATION_FAILED') throw err
      const problems = err.details as { field: string; message: string }[]
      const page = formPage(form, await footerOf(app.db, form.clientId), {
        problems,
        values: echoValues(form.fields, fields),
      })
      return htmlResponse(422, page, { 'content-security-policy': formPageCsp(form) })
    }
    return new Response(null, {
      status: 303,
      headers: { location: form.successUrl ?? `/f/${form.id}/thanks`, ...NO_STORE },
    })
  }

  return new Elysia({ name: 'herald-forms' })
    .get(
      '/f/:id',
      (c: Ctx) =>
        handled(app, { request: c.request, route: c.route }, async () => {
          const form = await findActiveForm(app, c.params.id ?? '')
          if (!form) return notFound()
          return htmlResponse(200, formPage(form, await footerOf(app.db, form.clientId)), {
            'content-security-policy': formPageCsp(form),
          })
        }),
      { parse: 'none', detail: { hide: true } },
    )
    .options(
      '/f/:id',
      (c: Ctx) =>
        handled(
          app,
          { request: c.request, route: c.route },
          () => new Response(null, { status: 204, headers: CORS }),
        ),
      { parse: 'none', detail: { hide: true } },
    )
    .post(
      '/f/:id',
      (c: Ctx) =>
        handled(app, { request: c.request, route: c.route }, async (meta) => {
          try {
            return await post(c, meta.requestId)
          } catch (err) {
            // Errors a script reads (413, 415, 400, 422) carry CORS too, or the browser hides them.
            if (!(err instanceof ServiceError)) throw err
            const { response } = errorResponse(err, meta.requestId)
            for (const [k, v] of Object.entries(CORS)) response.headers.set(k, v)
            return response
          }
        }),
      { parse: 'none', detail: { hide: true } },
    )
    .get(
      '/f/:id/thanks',
      (c: Ctx) =>
        handled(app, { request: c.request, route: c.route }, async () => {
          const form = await findActiveForm(app, c.params.id ?? '')
          if (!form) return notFound()
          return htmlResponse(200, thanksPage(form.doubleOptIn, await footerOf(app.db, form.clientId)))
        }),
      { parse: 'none', detail: { hide: true } },
    )
    .get(
      '/f/confirm/:token',
      (c: Ctx) =>
        handled(app, { request: c.request, route: c.route }, async () => {
          const outcome = await confirmByToken(app, c.params.token ?? '', {
            ip: ipOf(c),
            userAgent: c.request.headers.get('user-agent'),
          })
          if (!outcome) return notFound()
          if (outcome.redirect)
            return new Response(null, { status: 303, headers: { location: outcome.redirect, ...NO_STORE } })
          return htmlResponse(200, confirmedPage(await footerOf(app.db, outcome.clientId)))
        }),
      { parse: 'none', detail: { hide: true } },
    )
}
