import type { WebhookDeliveryRow } from './schema'

// What the webhook queue offers, on either store (webhook-queue.ts builds it: prepared
// statements on SQLite, postgres/webhook-queue.ts on PostgreSQL).

/** The statements behind a store's webhook queue, in the order the worker uses them. */
export interface WebhookQueue {
  /**
   * The last event seq fan-out has turned into deliveries, held for this transaction; null when
   * another process's fan-out holds it (PostgreSQL), which then does this batch.
   */
  dispatchMark(): Promise<number | null>
  /**
   * Whether an event was committed past the mark: one read, outside any transaction, with which
   * an idle pass learns there is nothing to fan out without opening one. Without a mark, any
   * event is past it: the fan-out then fails saying the mark is missing, rather than wait in silence.
   */
  eventsPastMark(): Promise<boolean>
  /** Moves the mark from `from` to `to`; false when another fan-out moved it first. */
  advanceDispatchMark(from: number, to: number): Promise<boolean>
  /** A client's active endpoints and the event types each subscribes to (JSON text). */
  activeHooksOf(clientId: string): Promise<{ id: string; events: string }[]>
  /** New pending deliveries of events to endpoints, each due at its `now`. */
  insertDeliveries(ds: readonly NewDelivery[]): Promise<void>
  /** Deliveries whose lease ended before `now` are pending again. */
  expireLeases(now: number): Promise<void>
  /** Active endpoints other than `busy`, in id order. */
  idleHooks(busy: readonly string[]): Promise<string[]>
  /**
   * Takes or renews the endpoint's lane for `holder` until `until`, when a delivery to it is due
   * at `now`: inserted, or updated when `holder` has it or its lease ended by `now`, in one
   * statement. Null when nothing is due (nothing written); otherwise whether `holder` now holds
   * it, and until when its holder does.
   */
  takeLane(webhookId: string, holder: string, now: number, until: number): Promise<LaneTake | null>
  /** Gives the endpoint's lane up, if `holder` has it. */
  releaseLane(webhookId: string, holder: string): Promise<void>
  /** Leases up to `limit` of an endpoint's due deliveries until `leaseEnd`, oldest first. */
  claimForHook(webhookId: string, now: number, leaseEnd: number, limit: number): Promise<WebhookDeliveryRow[]>
  /** The earliest due time (or lease end) of any delivery to an active endpoint not in `busy`. */
  nextDueAt(busy: readonly string[]): Promise<number | null>
  /**
   * Gives a leased delivery back, due at `at` (same attempt count), if it is still under the
   * lease that ends at `leasedUntil`: once that lease has run out, another claim may hold it.
   */
  releaseDelivery(id: string, at: number, leasedUntil: number): Promise<void>
  /** Whether the endpoint exists and is active (read before each send of a chain). */
  isHookActive(webhookId: string): Promise<boolean>
  /** Logs one attempt (status null when no response came back). */
  logAttempt(a: AttemptLog): Promise<void>
  /** The delivery is done. */
  markDeliverySucceeded(id: string, c: AttemptCounters): Promise<void>
  /** The endpoint is not failing (any more). */
  clearHookFailing(id: string): Promise<void>
}

export interface LaneTake {
  held: boolean
  until: number
}

export interface NewDelivery {
  id: string
  webhookId: string
  clientId: string
  eventId: string
  eventType: string
  now: number
}

export interface AttemptLog {
  deliveryId: string
  at: number
  status: number | null
  durationMs: number
  excerpt: string | null
  error: string | null
}

export interface AttemptCounters {
  attempts: number
  lastStatus: number | null
  lastError: string | null
  at: number
}
