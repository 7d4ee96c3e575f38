import type { AppContext } from '../context'
import type { WebhookDeliveryRow, WebhookRow } from '../db/schema'
import {
  claimForHook,
  expireLeases,
  idleHooks,
  isHookActive,
  nextDueAt,
  releaseAllLeases,
  releaseDelivery,
  webhookById,
} from '../db/webhook-queue'
import { createLeasedWorker, type LeasedWorker, type PassResult } from '../queue/leased-worker'
import {
  DEFAULT_SCHEDULE,
  DEFAULT_TIMEOUT_MS,
  type DeliveryPolicy,
  recordOutcome,
  send,
  signingSecrets,
} from './deliver'
import { fanOut } from './fanout'

// The in-process delivery worker. The outbox rows are the truth: the worker claims due rows
// with a lease (status `sending`, `next_attempt_at` = lease end), sends them one endpoint at a
// time in event order, and writes each outcome in one transaction. While nothing is due it
// sleeps until the earliest `next_attempt_at` (or the next cheap look for new events), so
// thousands of deliveries waiting for a retry cost nothing.

export interface WebhookWorkerOptions {
  /** Delays before each attempt, in ms; the first is normally 0. */
  schedule?: readonly number[]
  timeoutMs?: number
  /** How often to look for new events when not kicked. */
  pollMs?: number
  /** How long a claim holds before another pass may take the rows again. */
  leaseMs?: number
  /** Endpoints in flight at once. */
  concurrency?: number
  /** Deliveries claimed per endpoint per pass (they are sent one after another). */
  perEndpoint?: number
}

type ClaimedRow = WebhookDeliveryRow

export function createWebhookWorker(app: AppContext, options: WebhookWorkerOptions = {}): LeasedWorker {
  const policy: DeliveryPolicy = {
    schedule: options.schedule ?? DEFAULT_SCHEDULE,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  }
  const pollMs = options.pollMs ?? 50
  const leaseMs = options.leaseMs ?? 10 * 60_000
  const concurrency = options.concurrency ?? 64
  const perEndpoint = options.perEndpoint ?? 100
  const { sqlite } = app

  let stopped = false
  let nextDue: number | null | undefined
  const busy = new Map<string, Promise<void>>()
  // Set once the worker exists: a finished chain kicks it so the endpoint's next rows go out.
  let kick = () => {}

  /** Expires stale leases, then leases up to `max` due rows, endpoint by endpoint (idle ones). */
  function claim(now: number, max: number): ClaimedRow[] {
    expireLeases(sqlite, now)
    const out: ClaimedRow[] = []
    for (const id of idleHooks(sqlite, [...busy.keys()])) {
      if (out.length >= max) break
      out.push(...claimForHook(sqlite, id, now, now + leaseMs, Math.min(perEndpoint, max - out.length)))
    }
    return out
  }

  async function chain(webhookId: string, rows: ClaimedRow[]) {
    rows.sort((a, b) => (a.id < b.id ? -1 : 1))
    // The endpoint and its signing secrets are read once per chain (a rotated secret keeps
    // signing for 24 h anyway); whether it is still active is checked before every send, and
    // the row is read again after a failure (recordOutcome needs its current failing_since).
    const readHook = (): WebhookRow | undefined => webhookById(app.db, webhookId)
    let hook = readHook()
    const secrets = hook ? signingSecrets(app, hook) : []
    for (let i = 0; i < rows.length; i++) {
      if (stopped || !hook || !hook.active || (i > 0 && !isHookActive(sqlite, webhookId))) {
        for (const r of rows.slice(i)) releaseDelivery(sqlite, r.id, app.clock.now())
        return
      }
      const row = rows[i]!
      const result = await send(app, hook, row, policy, secrets)
      recordOutcome(app, hook, row, result, policy)
      const succeeded = result.status !== null && result.status >= 200 && result.status < 300
      if (!succeeded || hook.failingSince !== null) hook = readHook()
    }
  }

  function startChain(webhookId: string, rows: ClaimedRow[]) {
    const p = chain(webhookId, rows)
      .catch((err) => app.log.error('webhook delivery failed', { webhook_id: webhookId, error: String(err) }))
      .finally(() => {
        busy.delete(webhookId)
        kick()
      })
    busy.set(webhookId, p)
  }

  async function pass(): Promise<PassResult> {
    let worked = false
    for (;;) {
      const r = fanOut(app)
      if (r.created > 0) {
        nextDue = undefined
        worked = true
      }
      if (!r.more) break
    }
    const room = concurrency - busy.size
    if (room > 0) {
      const now = app.clock.now()
      const claimed = claim(now, room * perEndpoint)
      const groups = new Map<string, ClaimedRow[]>()
      for (const row of claimed) {
        const g = groups.get(row.webhookId)
        if (g) g.push(row)
        else groups.set(row.webhookId, [row])
      }
      for (const [id, rows] of groups) {
        if (busy.size >= concurrency) {
          for (const r of rows) releaseDelivery(sqlite, r.id, now)
          continue
        }
        startChain(id, rows)
      }
      if (claimed.length > 0) {
        nextDue = undefined
        worked = true
      }
    }
    if (nextDue === undefined) nextDue = nextDueAt(sqlite, [...busy.keys()])
    // Chains in flight kick the worker when they end; until then wake at the next due retry.
    return { worked, nextAt: nextDue ?? null }
  }

  const worker = createLeasedWorker(app, {
    name: 'webhooks',
    recover() {
      // A previous process died holding claims: they are due again now (same webhook-id).
      releaseAllLeases(sqlite, app.clock.now())
    },
    pass,
    idleMs: pollMs,
    async settle() {
      stopped = true
      // In-flight attempts finish (each is bounded by the timeout); what is left is recovered
      // as due on the next start.
      await Promise.race([Promise.allSettled([...busy.values()]), Bun.sleep(policy.timeoutMs + 1000)])
    },
    // A pass only starts the chains: drain() waits for them before calling the worker idle.
    inflight: () => (busy.size > 0 ? Promise.allSettled([...busy.values()]) : null),
    // New events or a finished chain: the next due time must be looked up again.
    onKick: () => {
      nextDue = undefined
    },
  })
  kick = worker.kick
  return worker
}

/** The webhook worker, started. */
export const startWebhookWorker = (app: AppContext, options: WebhookWorkerOptions = {}) =>
  createWebhookWorker(app, options).start()
