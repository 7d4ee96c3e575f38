import type { MessageRow } from '../db/schema'
import type { DeferReason } from '../lib/enums'
import type { Composed } from './compose'

// How a claimed message ended this attempt. Sources, the recipient step and the outcome writer
// (outcome-writer.ts) all speak it; it imports nothing of theirs, so none of them cycles through it.

export type Outcome =
  | {
      kind: 'sent'
      delivered: boolean
      provider: string
      providerMessageId: string | null
      composed: Composed
      keepContent: boolean
    }
  | { kind: 'retry'; provider: string; error: string; at: number }
  | { kind: 'failed'; provider: string | null; error: string }
  | { kind: 'skipped'; reason: string }
  /**
   * Not attempted (throttle, cap, source paused): back in the queue, attempt not counted.
   * `reason`: the sending limit that held it (absent for a paused source or suspended client).
   */
  | { kind: 'deferred'; at: number; reason?: DeferReason }
  /** Its source stopped after the claim (campaign cancelled or failed). */
  | { kind: 'cancelled'; reason: string | null }
  /**
   * The send thread carrying it died: whether it was sent is unknown, so nothing is written and
   * it keeps its lease; when the lease expires it is sent again with the same Message-ID.
   */
  | { kind: 'abandoned' }

export interface Finished {
  message: MessageRow
  outcome: Outcome
}
