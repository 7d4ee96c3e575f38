import { type ChannelProvider, ProviderError, type SendResult } from '../channels/types'
import type { AppContext } from '../context'
import { DIALECT } from '../db/dialect'
import type { Outbox } from '../db/outbox'
import type { ContactRow, MessageRow } from '../db/schema'
import { bucketsFor } from '../db/shared-buckets'
import type { RenderPool } from '../services/templates/render-pool'
import { type Composed, composeRendered, recipientVariables } from './compose'
import { sendWithin } from './deadline'
import type { SendDeps } from './deps'
import type { Outcome } from './outcome'
import type { SendPlan } from './plan'
import type { ProfileProviders, Route } from './profile-providers'
import { createRenderAhead } from './render-ahead'
import type { SendThreads } from './send-threads'
import type { MessageSource, Verdict } from './sources/types'
import { createRateBucket, createWindowLimits } from './throttle'

// One claimed message: the checks made at send time (its source still sending, client,
// contact status, suppression, limits), then a task that renders it and hands it to the
// channel's provider, here or (channels the send threads serve) on a send thread. Every message
// is rendered on the render pool first.

/** Renders started ahead of their send turns, at most (see render-ahead.ts). */
const RENDER_AHEAD = 64
/** How long the messages of a suspended client wait before they look again. */
const SUSPENDED_RECHECK_MS = 30_000

export interface RecipientOptions {
  /** The provider of each client's messages (its sending profile's, or the instance's). */
  profiles: ProfileProviders
  retryDelays: readonly number[]
  /** The tracking-token key. */
  key: Buffer
  outbox: Outbox
  /** Composes and sends the messages of the channels it serves off the main thread. */
  threads?: SendThreads | null
  /** Renders the other messages (default: the send render pool of `deps`). */
  renderer?: RenderPool
  deps: SendDeps
}

/** What the checks of a batch's messages read once for the whole batch. */
export interface BatchChecks {
  suppressed(clientId: string, email: string): boolean
}

export type RecipientStep = (
  m: MessageRow,
  source: MessageSource,
  plan: SendPlan,
  contact: ContactRow | undefined,
  now: number,
  checks: BatchChecks,
) => Promise<Outcome | (() => Promise<Outcome>)>

/** A verdict other than "send", as this attempt's outcome. */
const held = (v: Exclude<Verdict, { kind: 'send' }>): Outcome =>
  v.kind === 'defer' ? { kind: 'deferred', at: v.at } : { kind: 'cancelled', reason: v.reason }

export function createRecipientStep(app: AppContext, options: RecipientOptions): RecipientStep {
  const { clock } = app
  const { profiles, retryDelays, deps } = options
  const { contactVariables, sendBudgetMs } = deps
  // Several processes may serve a PostgreSQL database: their sends count against one rate and
  // one set of windows there. On SQLite one process serves, and counts in memory.
  const shared = DIALECT === 'postgres'
  const bucket = createRateBucket(app.config.sendRate, () => clock.now(), bucketsFor(app, 'sends'))
  const limits = createWindowLimits(options.outbox, app.config, { app, deps }, shared ? app.db : undefined)
  const timeoutMs = app.config.sendTimeoutMs
  const threads = options.threads ?? null
  const renderer = options.renderer ?? deps.renderer()
  const ahead = createRenderAhead(RENDER_AHEAD)

  // The outcome of a send, whichever thread made it (no closures per message: capture's path is hot).
  const refused = (provider: ChannelProvider, m: MessageRow, error: string, retryable: boolean): Outcome => {
    const delay = retryDelays[m.attempts - 1]
    if (retryable && delay !== undefined)
      return { kind: 'retry', provider: provider.name, error, at: clock.now() + delay }
    return { kind: 'failed', provider: provider.name, error }
  }
  const unrenderable = (error: string): Outcome => ({
    kind: 'failed',
    provider: null,
    error: `render failed: ${error}`,
  })
  const sent = (
    provider: ChannelProvider,
    r: SendResult,
    composed: Composed,
    keepContent: boolean,
  ): Outcome => ({
    kind: 'sent',
    delivered: r.delivered,
    provider: provider.name,
    providerMessageId: r.providerMessageId,
    composed,
    keepContent,
  })

  /** What to do with one claimed message before anything is sent. */
  return async function prepare(m, source, plan, contact, now, checks) {
    const verdict = await source.verdict(m, plan, false, now)
    if (verdict.kind !== 'send') return held(verdict)
    if (plan.clientSuspended) return { kind: 'deferred', at: now + SUSPENDED_RECHECK_MS }
    if (!contact) return { kind: 'skipped', reason: 'contact_erased' }
    if (contact.status !== 'subscribed') return { kind: 'skipped', reason: `contact_${contact.status}` }
    const channel = plan.channel
    if (channel === 'email' && checks.suppressed(m.clientId, contact.email))
      return { kind: 'skipped', reason: 'suppressed' }
    // STOP by SMS: the number asked for no more texts, calls or WhatsApp messages from this client.
    if (channel !== 'email' && contact.smsOptOut) return { kind: 'skipped', reason: 'sms_opted_out' }
    if (channel !== 'email' && !contact.phone) return { kind: 'skipped', reason: 'no_phone' }
    const to = channel === 'email' ? contact.email : contact.phone!
    let route: Route
    try {
      route = await profiles.route(m.clientId, channel)
    } catch (err) {
      // A profile that cannot be read or made into a provider (a secret no longer decrypts).
      return { kind: 'failed', provider: null, error: `sending account: ${(err as Error).message}` }
    }
    const over = await limits.reserve(m.clientId, to, now, plan.warmup, route.limits)
    if (over !== null) return { kind: 'deferred', at: over.at, reason: over.reason }
    const { provider } = route
    // A client's own SMTP account goes through pools of its own on the send threads.
    const thread =
      threads && (route.smtp !== null || (!route.own && threads.serves(channel))) ? threads : null
    // Rendered on the render pool (never on this thread, nor on a send thread, where a render
    // that runs away would hold that thread's sends), within the send budget, ahead of the turn.
    const variables = recipientVariables(app.config, options.key, plan, m, contactVariables(contact))
    const rendered = ahead.add(() =>
      renderer.render({ content: plan.content, variables, budgetMs: sendBudgetMs }),
    )
    return async () => {
      await bucket.take()
      // Paused or cancelled while this message waited for its turn: do not send it.
      const now = await source.verdict(m, plan, true, clock.now())
      if (now.kind !== 'send') return held(now)
      const keepContent = provider.capabilities.storesContent
      const r = await rendered()
      if (!r.ok) return unrenderable(r.field ? `${r.field}: ${r.message}` : r.message)
      const unsubscribeUrl = variables.unsubscribe_url!
      if (thread) {
        const t = await thread.send(plan, m, contact, keepContent, r.rendered, unsubscribeUrl, route.smtp)
        if (t.kind === 'sent') return sent(provider, t, t.composed, keepContent)
        if (t.kind === 'refused') return refused(provider, m, t.error, t.retryable)
        if (t.kind === 'unrenderable') return unrenderable(t.error)
        return { kind: 'abandoned' } // the thread died: the message keeps its lease
      }

      let composed: Composed
      try {
        composed = composeRendered(
          app.config,
          options.key,
          plan,
          m,
          contact,
          provider.callback?.path ?? null,
          r.rendered,
          unsubscribeUrl,
        )
      } catch (err) {
        return unrenderable((err as Error).message)
      }
      try {
        return sent(provider, await sendWithin(provider, composed.outgoing, timeoutMs), composed, keepContent)
      } catch (err) {
        return refused(
          provider,
          m,
          (err as Error).message || String(err),
          !(err instanceof ProviderError) || err.retryable,
        )
      }
    }
  }
}
