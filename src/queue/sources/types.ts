import type { MessageRow } from '../../db/schema'
import type { Awaitable } from '../../lib/awaitable'
import type { CampaignCounter } from '../../services/messages/counters'
import type { Outcome } from '../outcome'
import type { SendPlan } from '../plan'

// Where a message comes from (a campaign, a transactional send, a flow: journey or sequence)
// and that source's rules. The send queue plans, checks, sends and records by message; what
// differs between sources is behind this interface, one file per source.

export type SourceKind = 'campaign' | 'transactional' | 'flow'

/** Whether the source still sends a message now. */
export type Verdict = { kind: 'send' } | { kind: 'defer'; at: number } | { kind: 'cancel'; reason: string }

export const SEND: Verdict = { kind: 'send' }

export interface Due {
  /** Queues with messages to claim now (one per sending campaign); a batch is shared between all. */
  lanes: string[]
  /** When to look again if no lane has work now (clock ms); null: nothing will come due by itself. */
  nextAt: number | null
}

export interface BatchReport<P extends SendPlan = SendPlan> {
  /** The plans this batch used, by plan key, or why they could not be made. */
  plans: Map<string, P | Error>
  /** The last permanent failure a provider answered in the batch. */
  lastFailure: string | null
}

export interface MessageSource<P extends SendPlan = SendPlan> {
  readonly kind: SourceKind
  /** Owns this message. */
  owns(m: MessageRow): boolean
  /** Work before claiming (the campaign audience copy). True when it did some. */
  beforeClaim?(now: number): Awaitable<boolean>
  due(now: number): Awaitable<Due>
  /** Claims up to `limit` due messages of a lane until `leaseUntil`; their seqs. */
  claim(lane: string, now: number, leaseUntil: number, limit: number): Awaitable<number[]>
  /** Messages under one key share a plan (a campaign's id). */
  planKey(m: MessageRow): Awaitable<string>
  /** Content and sender of the message (cached per key); an Error says why it cannot send. */
  plan(m: MessageRow): Awaitable<P | Error>
  /** What becomes of a message whose plan could not be made. */
  unplannable(m: MessageRow, error: Error, now: number): Awaitable<Outcome>
  /**
   * Is the source still sending (send / defer / cancel)? Asked at claim time with the plan's
   * view and, `fresh`, again just before the provider call (paused meanwhile?).
   */
  verdict(m: MessageRow, plan: P, fresh: boolean, now: number): Awaitable<Verdict>
  /** Whose running totals the outcomes add to (the campaign), or null for none. */
  tallyKey(m: MessageRow): string | null
  /** Adds a batch's outcomes to those totals, in the transaction that records them. */
  tally(key: string, deltas: Partial<Record<CampaignCounter, number>>): Awaitable<void>
  /** After a batch is recorded: a source that cannot send, or was refused everything, stops. */
  afterBatch?(report: BatchReport<P>): Awaitable<void>
  /** After a pass: sources that are done complete (campaign.complete). True when one did. */
  afterPass?(now: number): Awaitable<boolean>
}
