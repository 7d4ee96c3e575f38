import type { ChannelFeedback } from '../channels/types'
import type { AppContext } from '../context'
import type { Db } from '../db/client'
import type { Outbox, OutboxRules } from '../db/outbox'
import type { ContactRow, MessageRow } from '../db/schema'
import type { Awaitable } from '../lib/awaitable'
import type { EffectiveProfile } from '../services/sending-profiles/effective'
import type { RenderPool } from '../services/templates/render-pool'
import type { PlanDeps, Planner } from './plan'
import type { MessageSource } from './sources/types'
import type { WarmupDeps } from './throttle'

// What the send queue asks of the domain, handed in by the wiring (src/sending.ts): the queue
// claims, paces, sends and records; where messages come from and what a send means to a
// campaign, a sender domain or a contact stays in src/services. Plain functions taking the
// context, so the wiring is one constant object and a call costs what a direct import did.

/** Builds a source for one worker, over that worker's outbox and planner. */
export type SourceFactory = (app: AppContext, outbox: Outbox, planner: Planner) => MessageSource

export interface SendDeps extends PlanDeps, WarmupDeps {
  /** The message sources, in the order their lanes are claimed. */
  sources: readonly SourceFactory[]
  /** The campaign states the outbox claims by (a stopped campaign's messages are dropped). */
  outboxRules: OutboxRules
  /** The key signing tracking links, the open pixel and VERP addresses. */
  trackingKey(app: AppContext): Buffer
  /** The client's sending accounts, `inherit` resolved against the instance settings. */
  sendingProfile(app: AppContext, clientId: string): Awaitable<EffectiveProfile>
  /** Records what providers report after a send (delivery, opens, bounces, replies). */
  feedback(app: AppContext): ChannelFeedback
  /** What a template sees as `contact.*`. */
  contactVariables(contact: ContactRow): Record<string, unknown>
  /** The per-client suppression check made before every email, read once for a batch's recipients. */
  suppressedAmong(
    db: Db,
  ): (recipients: readonly ContactRow[]) => Promise<(clientId: string, email: string) => boolean>
  /** The render pool of sends, and the time one render may take. */
  renderer(): RenderPool
  sendBudgetMs: number
  /** The message.delivered event of a send the provider confirmed at once, in the outcome's transaction. */
  recordDelivered(app: AppContext, m: MessageRow, at: number, email: string): Awaitable<void>
}
