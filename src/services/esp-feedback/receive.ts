import type { AppContext } from '../../context'
import { decryptSecret, safeEqual } from '../../lib/crypto'
import { attemptDelivery } from '../../webhooks/attempt'
import { hostResolver } from '../../webhooks/ssrf'
import { profileByToken } from '../sending-profiles/records'
import { mailgunEvents, mailgunSigned } from './mailgun'
import { basicCredentials, postmarkEvents } from './postmark'
import { noteReceived, recordEspEvents } from './record'
import { sendgridEvents, sendgridSigned } from './sendgrid'
import { sesEvents } from './ses'
import { type SnsVerifier, snsMessageOf } from './sns-signature'
import type { EspEvent, EspOutcome, EspProvider } from './types'

// One notification posted to `/hooks/{provider}/{token}`: the token names the client, the
// provider's own proof (SNS signature, Basic credentials, HMAC, ECDSA) is checked against that
// client's profile, then what it reports is recorded. Anything unauthenticated is 401 and
// changes nothing, the same answer for an unknown token and a bad proof; a notification about
// a message Herald does not know is acknowledged (the provider would otherwise retry it).

export interface EspRequest {
  headers: Headers
  body: string
}

const refused: EspOutcome = { ok: false, status: 401, message: 'Unknown feedback URL or bad credentials' }
const badBody = (what: string): EspOutcome => ({ ok: false, status: 400, message: `The body is not ${what}` })

function json(body: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body) }
  } catch {
    return { ok: false }
  }
}

export async function receiveEspNotification(
  app: AppContext,
  verifySns: SnsVerifier,
  provider: EspProvider,
  token: string,
  req: EspRequest,
): Promise<EspOutcome> {
  const row = await profileByToken(app, token)
  if (!row) return refused
  const feedback = row.profile.feedback
  const now = app.clock.now()
  const record = async (events: EspEvent[]): Promise<EspOutcome> => ({
    ok: true,
    ...(await recordEspEvents(app, row.clientId, provider, events)),
  })

  if (provider === 'postmark') {
    // Basic credentials come before the body is read as anything.
    const given = basicCredentials(req.headers.get('authorization'))
    const want = feedback.postmark
    if (!want || !given) return refused
    const password = decryptSecret(app.secretKey, want.password)
    if (!(safeEqual(given.user, want.username) && safeEqual(given.password, password))) return refused
    const body = json(req.body)
    return body.ok ? await record(postmarkEvents(body.value, now)) : badBody('JSON')
  }

  if (provider === 'sendgrid') {
    const key = feedback.sendgrid?.public_key
    const signature = req.headers.get('x-twilio-email-event-webhook-signature')
    const timestamp = req.headers.get('x-twilio-email-event-webhook-timestamp')
    if (!key || !sendgridSigned(key, timestamp, signature, req.body)) return refused
    const body = json(req.body)
    return body.ok ? await record(sendgridEvents(body.value, now)) : badBody('JSON')
  }

  const body = json(req.body)
  if (provider === 'mailgun') {
    const key = feedback.mailgun ? decryptSecret(app.secretKey, feedback.mailgun.signing_key) : null
    if (!key || !body.ok || !mailgunSigned(body.value, key, now)) return refused
    return await record(mailgunEvents(body.value, now))
  }

  // SES, through SNS: the message's signature against Amazon's certificate.
  if (!feedback.ses?.enabled) return refused
  const sns = body.ok ? snsMessageOf(body.value) : null
  if (!sns || !(await verifySns(sns))) return refused
  if (sns.Type === 'SubscriptionConfirmation')
    return await confirmSubscription(app, row.clientId, sns.SubscribeURL)
  if (sns.Type !== 'Notification') {
    await noteReceived(app, row.clientId, 'ses')
    return { ok: true, recorded: 0, ignored: 0 }
  }
  return await record(sesEvents(sns.Message, now))
}

/**
 * Subscribing the feedback URL to an SNS topic: SNS waits for its SubscribeURL to be visited.
 * The URL came in a signed message, and is still fetched through the webhook SSRF guard.
 */
async function confirmSubscription(
  app: AppContext,
  clientId: string,
  subscribeUrl: string | undefined,
): Promise<EspOutcome> {
  if (!subscribeUrl) return badBody('an SNS subscription confirmation with a SubscribeURL')
  const r = await attemptDelivery(subscribeUrl, {}, '', {
    method: 'GET',
    allowPrivate: app.config.webhookAllowPrivate,
    timeoutMs: 10_000,
    resolve: hostResolver(app.config.dnsServers),
  })
  if (r.status === null || r.status < 200 || r.status > 299) {
    app.log.warn('SNS subscription confirmation failed', { error: r.error, status: r.status })
    return { ok: false, status: 503, message: `Confirming the subscription failed: ${r.error ?? r.status}` }
  }
  await noteReceived(app, clientId, 'ses')
  return { ok: true, recorded: 0, ignored: 0, confirmed: true }
}
