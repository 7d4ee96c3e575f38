import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Awaitable } from '../lib/awaitable'
import {
  type ChannelProvider,
  type Outgoing,
  type ProviderCallback,
  type ProviderCapabilities,
  ProviderError,
  type SendOptions,
  type SendResult,
} from './types'

// SMS, WhatsApp, RCS and voice through Twilio's REST API, or anything that speaks it (the base
// URL is configurable). Messages API for text, Calls API with inline TwiML for voice. Twilio
// answers with the message or call SID at once; delivery is reported later to the status
// callback URL: the provider's `callback` checks X-Twilio-Signature and reads the status there.

/** Where Herald asks Twilio to post status callbacks (under HERALD_PUBLIC_URL). */
export const TWILIO_STATUS_PATH = '/api/v1/inbound/twilio/status'

export const TWILIO_CAPABILITIES: ProviderCapabilities = {
  storesContent: false,
  reportsDelivery: true,
  needsVerifiedSender: false,
}

export interface TwilioProviderOptions {
  /** `https://api.twilio.com` or a compatible service. */
  baseUrl: string
  accountSid: string
  authToken: string
  /** Default sender: an E.164 number, or a Messaging Service SID (MG…). */
  from?: string | null
  /** Per-request timeout (default 15 s). */
  timeoutMs?: number
}

export function createTwilioProvider(options: TwilioProviderOptions): ChannelProvider {
  const base = `${options.baseUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}`
  const authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}`

  async function post(
    resource: 'Messages' | 'Calls',
    form: URLSearchParams,
    signal: AbortSignal | undefined,
  ): Promise<string | null> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 15_000)
    let response: Response
    try {
      response = await fetch(`${base}/${resource}.json`, {
        method: 'POST',
        headers: {
          authorization,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: form,
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      })
    } catch (err) {
      throw new ProviderError(`Twilio unreachable: ${(err as Error).message}`, true)
    }
    const body = (await response.json().catch(() => null)) as {
      sid?: string
      code?: number
      message?: string
    } | null
    if (response.ok) return typeof body?.sid === 'string' ? body.sid : null // taken, whatever it said
    const detail = body?.message ?? `HTTP ${response.status}`
    // Throttling and server trouble pass; a refused credential is the operator's to fix, so
    // the message waits for it. Any other 4xx is about this message (bad number, opted out…).
    const retryable = response.status === 429 || response.status >= 500 || response.status === 401
    throw new ProviderError(`Twilio ${resource}: ${detail}`, retryable, body?.code ?? response.status)
  }

  return {
    name: 'twilio',
    capabilities: TWILIO_CAPABILITIES,
    callback: twilioStatusCallback(options.authToken),
    async send(message: Outgoing, sendOptions?: SendOptions): Promise<SendResult> {
      if (message.channel === 'email') throw new ProviderError('twilio cannot send email', false)
      const sender = message.from ?? options.from ?? null
      const whatsapp = (n: string) =>
        message.channel === 'whatsapp' && !n.includes(':') ? `whatsapp:${n}` : n
      const form = new URLSearchParams({ To: whatsapp(message.to) })
      if (message.statusCallbackUrl) form.set('StatusCallback', message.statusCallbackUrl)
      if (sender?.startsWith('MG') && message.channel !== 'voice') form.set('MessagingServiceSid', sender)
      else if (sender) form.set('From', whatsapp(sender))
      else throw new ProviderError(`no sender number for ${message.channel}`, false)
      if (message.channel === 'voice') {
        form.set('Twiml', `<Response><Say>${escapeXml(message.body)}</Say></Response>`)
        return { providerMessageId: await post('Calls', form, sendOptions?.signal), delivered: false }
      }
      form.set('Body', message.body)
      return { providerMessageId: await post('Messages', form, sendOptions?.signal), delivered: false }
    },
    async close() {},
  }
}

const escapeXml = (text: string) =>
  text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!,
  )

/**
 * Twilio's X-Twilio-Signature check: base64 HMAC-SHA1, keyed with the auth token, of the full
 * URL Twilio requested followed by each POST parameter's name and value, sorted by name.
 * Behind a proxy the URL may be seen with or without its default port, so both are tried.
 */
export function verifyTwilioSignature(
  authToken: string,
  url: string,
  params: Record<string, string>,
  signatureHeader: string | null | undefined,
): boolean {
  if (!signatureHeader) return false
  const given = Buffer.from(signatureHeader)
  const payload = Object.keys(params)
    .sort()
    .map((k) => k + params[k])
    .join('')
  return urlVariants(url).some((candidate) => {
    const expected = Buffer.from(
      createHmac('sha1', authToken)
        .update(candidate + payload)
        .digest('base64'),
    )
    return expected.length === given.length && timingSafeEqual(expected, given)
  })
}

function urlVariants(url: string): string[] {
  const m = /^(https?):\/\/([^/?#]*?)(?::(\d+))?([/?#].*)?$/i.exec(url)
  if (!m) return [url]
  const [, scheme, host, port, rest = ''] = m
  const defaultPort = scheme!.toLowerCase() === 'https' ? '443' : '80'
  if (port !== undefined && port !== defaultPort) return [url]
  return [url, `${scheme}://${host}${rest}`, `${scheme}://${host}:${defaultPort}${rest}`]
}

export interface TwilioStatus {
  providerMessageId: string | null
  status: 'delivered' | 'failed' | 'sent' | 'queued' | 'other'
  errorCode: string | null
  errorMessage: string | null
}

// MessageStatus values (Messages API) and CallStatus values (Calls API) in our terms. A read
// receipt implies delivery; a call is delivered when it was answered and completed.
const MESSAGE_STATUS: Record<string, TwilioStatus['status']> = {
  accepted: 'queued',
  scheduled: 'queued',
  queued: 'queued',
  sending: 'queued',
  sent: 'sent',
  delivered: 'delivered',
  read: 'delivered',
  undelivered: 'failed',
  failed: 'failed',
  canceled: 'failed',
}
const CALL_STATUS: Record<string, TwilioStatus['status']> = {
  queued: 'queued',
  initiated: 'queued',
  ringing: 'sent',
  'in-progress': 'sent',
  completed: 'delivered',
  busy: 'failed',
  'no-answer': 'failed',
  canceled: 'failed',
  failed: 'failed',
}

/** Reads a status callback's form parameters (messages: MessageStatus, calls: CallStatus). */
export function parseTwilioStatus(params: Record<string, string>): TwilioStatus {
  const call = params.CallStatus !== undefined && params.MessageStatus === undefined
  const raw = (call ? params.CallStatus : (params.MessageStatus ?? params.SmsStatus))?.toLowerCase() ?? ''
  const status = (call ? CALL_STATUS[raw] : MESSAGE_STATUS[raw]) ?? 'other'
  return {
    providerMessageId: params.MessageSid ?? params.SmsSid ?? params.CallSid ?? null,
    status,
    errorCode: params.ErrorCode || null,
    // a failed call has no error text of its own; its status (busy, no-answer…) says why
    errorMessage: params.ErrorMessage || (status === 'failed' ? raw : null),
  }
}

/**
 * The status callback: authenticated by X-Twilio-Signature (HMAC-SHA1 with the auth token over
 * the URL Twilio was given and the form parameters); delivered or failed are reported as
 * feedback, intermediate states change nothing, and a SID that is not ours is acknowledged.
 */
export function twilioStatusCallback(
  /** The auth token, or the tokens that may have signed a request to this URL (clients' own accounts). */
  tokens: string | ((url: string) => Awaitable<readonly string[]>),
): ProviderCallback {
  return {
    path: TWILIO_STATUS_PATH,
    async handle(request, feedback) {
      const params = Object.fromEntries(new URLSearchParams(request.body))
      const signature = request.headers.get('x-twilio-signature')
      const candidates = typeof tokens === 'string' ? [tokens] : await tokens(request.url)
      if (!candidates.some((token) => verifyTwilioSignature(token, request.url, params, signature)))
        return {
          ok: false,
          status: 403,
          code: 'FORBIDDEN',
          message: 'X-Twilio-Signature does not match this request',
        }
      const status = parseTwilioStatus(params)
      const id = status.providerMessageId
        ? await feedback.messageOf('twilio', status.providerMessageId)
        : null
      if (id && status.status === 'delivered') await feedback.delivered(id, feedback.now())
      else if (id && status.status === 'failed')
        await feedback.failed(
          id,
          [status.errorCode, status.errorMessage].filter(Boolean).join(' ') ||
            'the provider reported a failure',
          feedback.now(),
        )
      return { ok: true }
    },
  }
}
