import { rmSync } from 'node:fs'
import type { TSchema } from '@sinclair/typebox'
import { type AppContext, type Ctx, withActor } from '../../context'
import { type FieldError, ServiceError, validationFailed } from '../../errors'
import type { Awaitable } from '../../lib/awaitable'
import { sha256Hex } from '../../lib/crypto'
import { parseId } from '../../lib/ids'
import { isPlainObject } from '../../lib/plain-object'
import { maskSecretMembers } from '../../lib/secrets'
import { coerceQuery, validate } from '../../lib/validate'
import { type Actor, ANONYMOUS } from '../../services/actors/actor'
import { type AuthOutcome, createAuthenticator } from '../../services/api-keys/authenticate'
import { abandonIdempotent, beginIdempotent, completeIdempotent } from '../../services/idempotency'
import { requestBuckets } from '../../services/limits/request-buckets'
import { createTokenAuthenticator, looksLikeJwt } from '../../services/oauth/authenticate'
import type { Download, Verb } from '../../services/verbs/define'
import { authorize, type InvokeOptions, invoke, invokeNow } from '../../services/verbs/invoke'
import { clientIp } from '../admin/client-ip'
import { presentedCredential, unauthorized, wwwAuthenticate } from '../middleware/auth'
import {
  ANONYMOUS_BODY_LIMIT,
  checkStreamedBody,
  JSON_BODY_LIMIT,
  parseJson,
  readLimited,
} from '../middleware/body'
import { createIpLimiter, createRateLimiter, type RateLimiter } from '../middleware/rate-limit'
import { spoolUpload, type Upload, uploadsDir } from '../middleware/upload'
import { takesClientIdFromBody } from './client-id-param'
import { isMutating, type Operation } from './define-operation'
import { errorResponse, jsonResponse } from './respond'

/** What the access log needs to know about a request once it is answered. */
export interface RequestMeta {
  requestId: string
  keyId?: string
  status?: number
  /**
   * Set by a door that admitted the credential itself (the MCP endpoint, once per HTTP request):
   * the operation skips credential and rate limit and goes on from the scope check.
   */
  actor?: Actor
  /** The connection's peer address, for operations with a per-IP bucket. */
  peer?: string | null
  /** The answer was built with X-Request-Id already (runOperation's are): no need to set it again. */
  requestIdSent?: boolean
}

export interface Pipeline {
  app: AppContext
  /** An API key or an OAuth access token (a JWT) → the actor, or why not. */
  authenticate: (presented: string, now: number) => Awaitable<AuthOutcome>
  rateLimit: RateLimiter
  /** One per-IP bucket per unauthenticated operation (by operation id), made on first use. */
  ipLimits: Map<string, ReturnType<typeof createIpLimiter>>
}

function credentialAuthenticator(app: AppContext): Pipeline['authenticate'] {
  const keys = createAuthenticator(app.db)
  const tokens = createTokenAuthenticator(app)
  return async (presented, now) =>
    looksLikeJwt(presented) ? await tokens(presented, now) : await keys(presented, now)
}

export function createPipeline(app: AppContext): Pipeline {
  return {
    app,
    authenticate: credentialAuthenticator(app),
    rateLimit: createRateLimiter(requestBuckets(app, 'key')),
    ipLimits: new Map(),
  }
}

/**
 * One token of the operation's own per-IP bucket (429 with Retry-After when empty). Its
 * RateLimit-* headers go on every answer, as a key's do, so a client can pace itself.
 */
async function admitIp(
  p: Pipeline,
  o: Operation,
  request: Request,
  headers: Record<string, string>,
  meta: RequestMeta,
) {
  let limit = p.ipLimits.get(o.id)
  if (!limit) {
    limit = createIpLimiter(p.app.config.loginRatePerMinute, requestBuckets(p.app, `ip-${o.id}`))
    p.ipLimits.set(o.id, limit)
  }
  const decision = await limit(
    clientIp(request, meta.peer ?? null, p.app.config.trustedProxies),
    p.app.clock.now(),
  )
  Object.assign(headers, decision.headers)
  if (decision.allowed) return
  throw new ServiceError(
    'RATE_LIMITED',
    `Too many requests from your address; retry in ${headers['retry-after']} s`,
  )
}

/**
 * Every 401 carries the challenge, also one a verb raised (a failed identity
 * assertion); `error="invalid_token"` only when an Authorization or X-Api-Key header came.
 */
function challenge(p: Pipeline, err: unknown, request: Request, headers: Record<string, string>) {
  if (err instanceof ServiceError && err.code === 'UNAUTHORIZED' && !headers['www-authenticate'])
    headers['www-authenticate'] = wwwAuthenticate(
      p.app.config.publicUrl,
      presentedCredential(request).present,
    )
}

const MAX_IDEMPOTENCY_KEY = 255

/**
 * Frees the key of a request that failed (5xx): a retry may run. On a full volume the delete
 * may fail too; the request's own error is the one answered and logged, and the purge job
 * clears the marker later.
 */
async function releaseKey(app: Pipeline['app'], credentialId: string, key: string) {
  try {
    await abandonIdempotent(app, credentialId, key)
  } catch (err) {
    app.log.warn('idempotency key not released', { error: String((err as Error)?.message ?? err) })
  }
}

/**
 * What is wrong with an idempotency key (the REST header, or the MCP tools' `idempotency_key`),
 * or null. C0 controls (tab included) and DEL are refused; bytes 0x80–0xFF may be UTF-8 and are
 * left alone; a character above 0xFF cannot travel in a header at all.
 */
export function idempotencyKeyProblem(value: string): string | null {
  if (value.length === 0 || value.length > MAX_IDEMPOTENCY_KEY) return 'must be 1 to 255 characters'
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c < 0x20 || c === 0x7f) return 'must not contain control characters'
    if (c > 0xff) return 'must contain only characters an HTTP header can carry (ASCII or Latin-1)'
  }
  return null
}

function queryObject(url: string): Record<string, string> {
  const q = url.indexOf('?')
  if (q === -1) return {}
  return Object.fromEntries(new URLSearchParams(url.slice(q + 1)))
}

/** The verb's one input object: body members, then the named query members, then path ids. */
function verbInput(
  o: Operation,
  params: Record<string, string>,
  rawQuery: Record<string, string>,
  body: unknown,
): Record<string, unknown> {
  // Most reads take only path ids (or nothing): the params are the input. A body member such an
  // operation does not take is refused below like any unknown member; an operation that takes
  // no query string ignores one (cache busters, tracking parameters), as it always has.
  if (!o.body && body === undefined && !o.query) return params
  const errors: FieldError[] = []
  const input: Record<string, unknown> = {}
  if (o.body || body !== undefined) {
    if (!isPlainObject(body)) throw validationFailed([{ field: 'body', message: 'must be a JSON object' }])
    for (const [name, value] of Object.entries(body)) {
      // A member that belongs in the path or the query string is not a body member.
      if (o.bodyMembers.includes(name)) input[name] = value
      else errors.push({ field: name, message: 'is not a known member' })
    }
  }
  const query = o.query ? coerceQuery(o.query, rawQuery) : {}
  for (const [name, value] of Object.entries(query)) {
    if (o.queryMembers.includes(name)) input[name] = value
    else errors.push({ field: name, message: 'is not a known query parameter' })
  }
  // client_id is a query parameter everywhere else (the spec's convention): where an operation
  // reads it from the body (search, API keys, OAuth clients, agent registration), ?client_id= means
  // the same instead of being dropped (a search over every client, or a platform-wide key). An
  // empty value is an absent one, as everywhere in a query string (coerceQuery).
  if (takesClientIdFromBody(o) && rawQuery.client_id !== undefined && rawQuery.client_id !== '') {
    if (input.client_id !== undefined && input.client_id !== rawQuery.client_id)
      errors.push({ field: 'client_id', message: 'differs between the query string and the body' })
    else input.client_id = rawQuery.client_id
  }
  const all = { ...input, ...params }
  // Every failing member at once: the misplaced ones and what the verb's schema says of the rest.
  if (errors.length > 0) throw validationFailed([...errors, ...validate(o.verb.input, all, 'input')])
  return all
}

function answerOf(o: Operation, result: unknown): unknown {
  return o.answer === 'as-is' ? result : { data: result }
}

function downloadResponse(d: Download, headers: Record<string, string>): Response {
  return new Response(d.body, {
    headers: {
      ...headers,
      'content-type': d.contentType,
      'content-disposition': `attachment; filename="${d.filename}"`,
    },
  })
}

/**
 * The credential presented (401 with the challenge for `resourcePath`'s metadata), then one
 * token of its rate limit (429); the rate-limit headers go into `headers`. Every door that takes
 * API keys (REST, MCP) admits them here.
 */
export async function admitCredential(
  p: Pipeline,
  request: Request,
  headers: Record<string, string>,
  meta: RequestMeta,
  resourcePath = '',
): Promise<Actor> {
  const { app } = p
  const credential = presentedCredential(request)
  if (!credential.present || credential.token === null) {
    headers['www-authenticate'] = wwwAuthenticate(app.config.publicUrl, credential.present, resourcePath)
    throw unauthorized(credential.present ? 'malformed' : 'missing')
  }
  // `p.authenticate` turns a presented key or OAuth access token into an Actor.
  const outcome = await p.authenticate(credential.token, app.clock.now())
  if (!outcome.ok) {
    if (outcome.reason === 'client_suspended')
      throw new ServiceError('FORBIDDEN', 'The client this key belongs to is suspended')
    headers['www-authenticate'] = wwwAuthenticate(app.config.publicUrl, true, resourcePath)
    throw unauthorized(outcome.reason, outcome.message)
  }
  const { actor } = outcome
  meta.keyId = actor.id
  const limit = await p.rateLimit(actor.id, actor.key?.tier ?? 'standard', app.clock.now())
  Object.assign(headers, limit.headers)
  if (!limit.allowed)
    throw new ServiceError('RATE_LIMITED', `Rate limit exceeded; retry in ${limit.headers['retry-after']} s`)
  return actor
}

/**
 * The rest of a JSON-RPC batch's tokens: its admission paid for one call, each further call
 * takes one more, all or none. A bucket that cannot pay them all refuses the whole batch (429)
 * before any call runs, so a client resends it whole after Retry-After and nothing ran twice.
 */
export async function admitBatch(p: Pipeline, actor: Actor, calls: number, headers: Record<string, string>) {
  if (calls <= 1) return
  const limit = await p.rateLimit(actor.id, actor.key?.tier ?? 'standard', p.app.clock.now(), calls - 1)
  Object.assign(headers, limit.headers)
  if (!limit.allowed)
    throw new ServiceError(
      'RATE_LIMITED',
      `Rate limit exceeded: a batch of ${calls} calls takes ${calls} tokens (limit ${limit.headers['ratelimit-limit']}); retry in ${limit.headers['retry-after']} s`,
    )
}

/**
 * One request through one operation, in the order a client can reason about:
 * draining → credential (401) → rate limit (429) → scope (403) → path ids (404) → body read
 * (413/415/400) → Idempotency-Key (replay/409/422) → validation (422) → verb.
 * The verb and the stored idempotent response commit in one transaction.
 */
export async function runOperation(
  p: Pipeline,
  o: Operation,
  request: Request,
  rawParams: Record<string, string>,
  meta: RequestMeta,
): Promise<Response> {
  const { app } = p
  const headers: Record<string, string> = { 'x-request-id': meta.requestId }
  if (o.cors) headers['access-control-allow-origin'] = '*'
  let upload: Upload | undefined
  const answer = (response: Response) => {
    meta.status = response.status
    // Every answer below is built from `headers`, which carry X-Request-Id.
    meta.requestIdSent = true
    // A spooled upload the verb did not take (moved) is not kept.
    if (upload) rmSync(upload.file, { force: true })
    return response
  }
  try {
    if (app.lifecycle.draining)
      throw new ServiceError('UNAVAILABLE', 'The server is shutting down; retry shortly')

    if (o.perIpLimit) await admitIp(p, o, request, headers, meta)
    let actor: Actor = ANONYMOUS
    let credentialId: string | null = null
    if (o.auth !== 'none') {
      actor = meta.actor ?? (await admitCredential(p, request, headers, meta))
      credentialId = actor.id
      try {
        authorize(o.verb, actor)
      } catch (err) {
        // RFC 6750 §3.1: an OAuth token lacking the scope also hears it in the challenge.
        const scope = (err as ServiceError).details as { required_scope?: string } | undefined
        if (actor.kind === 'oauth' && scope?.required_scope)
          headers['www-authenticate'] = `Bearer error="insufficient_scope", scope="${scope.required_scope}"`
        throw err
      }
    }
    const ctx: Ctx = withActor(app, actor, meta.requestId)

    const params: Record<string, string> = {}
    for (const name in rawParams) {
      const value = rawParams[name]!
      // Without a '%' there is nothing to decode (and nothing decodeURIComponent could refuse).
      const decoded = value.includes('%') ? decodeURIComponent(value) : value
      if (o.rawParams?.includes(name)) params[name] = decoded
      else {
        const id = parseId(decoded)
        if (!id) throw new ServiceError('NOT_FOUND', 'Resource not found')
        params[name] = id
      }
    }

    let rawBody: Uint8Array = new Uint8Array()
    let body: unknown
    if (o.stream) {
      checkStreamedBody(request, o.stream)
      upload = await spoolUpload(request, o.stream, uploadsDir(app.config))
      rawBody = new TextEncoder().encode(`${upload.contentType}\n${upload.sha256}`)
    } else if (isMutating(o)) {
      rawBody = await readLimited(request, o.auth === 'none' ? ANONYMOUS_BODY_LIMIT : JSON_BODY_LIMIT)
      // An operation without a JSON body still refuses members sent in one (an empty body or {} is fine).
      if (o.body || rawBody.byteLength > 0) body = parseJson(rawBody, request.headers.get('content-type'))
    }

    let idempotencyKey: string | null = null
    if (isMutating(o) && credentialId) {
      idempotencyKey = request.headers.get('idempotency-key')
      if (idempotencyKey !== null) {
        // Bun's HTTP parser answers a bare 400 to most control bytes in a header; tab and DEL
        // reach us (and any of them through an in-process Request).
        const problem = idempotencyKeyProblem(idempotencyKey)
        if (problem) throw validationFailed([{ field: 'Idempotency-Key', message: problem }])
        headers['idempotency-key'] = idempotencyKey
        // The query is part of the request: ?client_id=A and ?client_id=B are different creates.
        const url = new URL(request.url)
        const path = url.pathname + url.search
        const start = await beginIdempotent(app, credentialId, idempotencyKey, {
          method: o.method,
          path,
          bodyHash: sha256Hex(rawBody),
        })
        if (start.kind === 'replay')
          return answer(jsonResponse(start.status, start.body, { ...headers, 'idempotent-replayed': 'true' }))
      }
    }

    try {
      const rawQuery = o.query || takesClientIdFromBody(o) ? queryObject(request.url) : {}
      const input = verbInput(o, params, rawQuery, body)
      // The answer is serialised once: with an Idempotency-Key it is stored inside the verb's
      // transaction (both commit or neither) and the same text is sent.
      let text: string | null = null
      const options: InvokeOptions = upload ? { extras: { upload } } : {}
      if (idempotencyKey && credentialId && o.answer !== 'download') {
        const [credential, key] = [credentialId, idempotencyKey]
        const secrets = o.verb.secrets
        options.atCommit = async (r) => {
          text = JSON.stringify(answerOf(o, r))
          // A secret in the answer is sent this once; the stored copy (the replay) has it masked.
          const stored = secrets ? JSON.stringify(answerOf(o, maskSecretMembers(r, secrets))) : text
          await completeIdempotent(app, credential, key, 200, stored)
        }
      }
      const result = o.verb.prepare
        ? await invoke(o.verb, ctx, input, options)
        : await invokeNow(o.verb as Verb<TSchema, unknown, undefined>, ctx, input, options)
      if (o.answer === 'download') return answer(downloadResponse(result as Download, headers))
      return answer(jsonResponse(200, text ?? JSON.stringify(answerOf(o, result)), headers))
    } catch (err) {
      challenge(p, err, request, headers)
      const { response, internal } = errorResponse(err, meta.requestId, headers)
      if (idempotencyKey && credentialId) {
        if (response.status >= 500) await releaseKey(app, credentialId, idempotencyKey)
        else
          await completeIdempotent(
            app,
            credentialId,
            idempotencyKey,
            response.status,
            await response.clone().text(),
          )
      }
      if (internal)
        app.log.error('request failed', {
          request_id: meta.requestId,
          error: String((err as Error)?.stack ?? err),
        })
      return answer(response)
    }
  } catch (err) {
    challenge(p, err, request, headers)
    const { response, internal } = errorResponse(err, meta.requestId, headers)
    if (internal)
      app.log.error('request failed', {
        request_id: meta.requestId,
        error: String((err as Error)?.stack ?? err),
      })
    return answer(response)
  }
}
