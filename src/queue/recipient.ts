import {
  type Channel,
  type ChannelProvider,
  type Outgoing,
  ProviderError,
  type SendResult,
} from '../channels/types'
import type { AppContext } from '../context'
import type { Outbox } from '../db/outbox'
import type { ContactRow, MessageRow } from '../db/schema'
import { createSuppressionCheck } from '../services/suppressions/manage'
import { composeMessage } from './compose'
import type { Outcome } from './outcome'
import type { SendPlan } from './plan'
import type { MessageSource, Verdict } from './sources/types'
import { createRateBucket, createWindowLimits } from './throttle'

// One claimed message: the checks made at send time (its source still sending, client,
// contact status, suppression, limits), then a task that renders it and hands it to the
// channel's provider.

/** How long the messages of a suspended client wait before they look again. */
const SUSPENDED_RECHECK_MS = 30_000

export interface RecipientOptions {
  providers: Record<Channel, ChannelProvider>
  retryDelays: readonly number[]
  /** The tracking-token key. */
  key: Buffer
  outbox: Outbox
}

export type RecipientStep = (
  m: MessageRow,
  source: MessageSource,
  plan: SendPlan,
  contact: ContactRow | undefined,
  now: number,
) => Outcome | (() => Promise<Outcome>)

/** A verdict other than "send", as this attempt's outcome. */
const held = (v: Exclude<Verdict, { kind: 'send' }>): Outcome =>
  v.kind === 'defer' ? { kind: 'deferred', at: v.at } : { kind: 'cancelled', reason: v.reason }

export function createRecipientStep(app: AppContext, options: RecipientOptions): RecipientStep {
  const { clock } = app
  const { providers, retryDelays } = options
  const isSuppressed = createSuppressionCheck(app.db)
  const bucket = createRateBucket(app.config.sendRate, () => clock.now())
  const limits = createWindowLimits(options.outbox, app.config, app)
  const timeoutMs = app.config.sendTimeoutMs

  /** What to do with one claimed message before anything is sent. */
  return function prepare(m, source, plan, contact, now) {
    const verdict = source.verdict(m, plan, false, now)
    if (verdict.kind !== 'send') return held(verdict)
    if (plan.clientSuspended) return { kind: 'deferred', at: now + SUSPENDED_RECHECK_MS }
    if (!contact) return { kind: 'skipped', reason: 'contact_erased' }
    if (contact.status !== 'subscribed') return { kind: 'skipped', reason: `contact_${contact.status}` }
    const channel = plan.channel
    if (channel === 'email' && isSuppressed(m.clientId, contact.email))
      return { kind: 'skipped', reason: 'suppressed' }
    if (channel !== 'email' && !contact.phone) return { kind: 'skipped', reason: 'no_phone' }
    const to = channel === 'email' ? contact.email : contact.phone!
    const deferTo = limits.reserve(m.clientId, to, now, plan.warmup)
    if (deferTo !== null) return { kind: 'deferred', at: deferTo }
    const provider = providers[channel]
    // Rendering happens in the send task, not for the whole batch up front: the event loop then
    // interleaves it with the provider's I/O instead of stalling every connection per batch.
    return async () => {
      await bucket.take()
      // Paused or cancelled while this message waited for its turn: do not send it.
      const now = source.verdict(m, plan, true, clock.now())
      if (now.kind !== 'send') return held(now)
      let composed: ReturnType<typeof composeMessage>
      try {
        composed = composeMessage(app, options.key, plan, m, contact, provider.callback?.path ?? null)
      } catch (err) {
        return { kind: 'failed', provider: null, error: `render failed: ${(err as Error).message}` }
      }
      try {
        const r = await sendWithin(provider, composed.outgoing, timeoutMs)
        return {
          kind: 'sent',
          delivered: r.delivered,
          provider: provider.name,
          providerMessageId: r.providerMessageId,
          composed,
          keepContent: provider.capabilities.storesContent,
        }
      } catch (err) {
        const retryable = !(err instanceof ProviderError) || err.retryable
        const error = (err as Error).message || String(err)
        const delay = retryDelays[m.attempts - 1]
        if (retryable && delay !== undefined)
          return { kind: 'retry', provider: provider.name, error, at: clock.now() + delay }
        return { kind: 'failed', provider: provider.name, error }
      }
    }
  }
}

/**
 * One provider call, bounded by HERALD_SEND_TIMEOUT_MS whatever the provider: past the deadline
 * the call's signal aborts (the SMTP pool closes the connection delivering it) and the send is a
 * retryable failure, even if the provider ignores the signal. The message keeps its lease until
 * the outcome is written; a provider that delivered it after all makes the retry a duplicate
 * with the same Message-ID, as after a crash.
 */
export async function sendWithin(
  provider: ChannelProvider,
  message: Outgoing,
  timeoutMs: number,
): Promise<SendResult> {
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new ProviderError(
        `${provider.name}: no answer within ${timeoutMs} ms (send timed out)`,
        true,
        'ETIMEDOUT',
      )
      reject(err)
      controller.abort(err)
    }, timeoutMs)
  })
  try {
    return await Promise.race([provider.send(message, { signal: controller.signal }), deadline])
  } finally {
    clearTimeout(timer)
  }
}
