import { eq } from 'drizzle-orm'
import type { AppContext } from '../context'
import type { WebhookDeliveryRow, WebhookRow } from '../db/schema'
import { webhooks } from '../db/schema'
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

  // A claim whose lease ran out (its process died mid-attempt) is pending again.
  const expireLeases = sqlite.query(
    "UPDATE webhook_deliveries SET status = 'pending' WHERE status = 'sending' AND next_attempt_at <= ?1",
  )
  const idleHooks = sqlite.query<{ id: string }, [string]>(
    'SELECT id FROM webhooks WHERE active = 1 AND id NOT IN (SELECT value FROM json_each(?1)) ORDER BY id',
  )
  // Per endpoint through webhook_deliveries_claim_idx, so a pass costs the same whatever the
  // backlog. Fan-out stamps one time per batch, so (next_attempt_at, id) is event order for new
  // deliveries; a retried one goes by its retry time (DESIGN §8: in order except when retrying).
  const claimForHook = sqlite.query(
    `UPDATE webhook_deliveries SET status = 'sending', next_attempt_at = ?1
     WHERE id IN (
       SELECT id FROM webhook_deliveries
       WHERE webhook_id = ?2 AND status = 'pending' AND next_attempt_at <= ?3
       ORDER BY next_attempt_at, id LIMIT ?4
     ) RETURNING *`,
  )
  const claimQuery = {
    all(
      leaseEnd: number,
      now: number,
      busyJson: string,
      per: number,
      max: number,
    ): Record<string, unknown>[] {
      expireLeases.run(now)
      const out: Record<string, unknown>[] = []
      for (const { id } of idleHooks.all(busyJson)) {
        if (out.length >= max) break
        out.push(
          ...(claimForHook.all(leaseEnd, id, now, Math.min(per, max - out.length)) as Record<
            string,
            unknown
          >[]),
        )
      }
      return out
    },
  }
  const nextDueQuery = sqlite.query(
    `SELECT min(d.next_attempt_at) AS t FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
     WHERE d.status IN ('pending', 'sending') AND w.active = 1
       AND d.webhook_id NOT IN (SELECT value FROM json_each(?1))`,
  )
  const release = sqlite.query(
    "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?1 WHERE id = ?2 AND status = 'sending'",
  )

  let stopped = false
  let nextDue: number | null | undefined
  const busy = new Map<string, Promise<void>>()
  // Set once the worker exists: a finished chain kicks it so the endpoint's next rows go out.
  let kick = () => {}

  const toRow = (r: Record<string, unknown>): ClaimedRow => ({
    id: r.id as string,
    webhookId: r.webhook_id as string,
    clientId: r.client_id as string,
    eventId: r.event_id as string,
    eventType: r.event_type as string,
    test: Boolean(r.test),
    payload: (r.payload as string | null) ?? null,
    status: r.status as ClaimedRow['status'],
    attempts: r.attempts as number,
    nextAttemptAt: r.next_attempt_at as number | null,
    lastStatus: r.last_status as number | null,
    lastError: r.last_error as string | null,
    createdAt: r.created_at as number,
    updatedAt: r.updated_at as number,
    completedAt: r.completed_at as number | null,
  })

  const isActive = sqlite.query<{ active: number }, [string]>('SELECT active FROM webhooks WHERE id = ?1')

  async function chain(webhookId: string, rows: ClaimedRow[]) {
    rows.sort((a, b) => (a.id < b.id ? -1 : 1))
    // The endpoint and its signing secrets are read once per chain (a rotated secret keeps
    // signing for 24 h anyway); whether it is still active is checked before every send, and
    // the row is read again after a failure (recordOutcome needs its current failing_since).
    const readHook = (): WebhookRow | undefined =>
      app.db.select().from(webhooks).where(eq(webhooks.id, webhookId)).get()
    let hook = readHook()
    const secrets = hook ? signingSecrets(app, hook) : []
    for (let i = 0; i < rows.length; i++) {
      if (stopped || !hook || !hook.active || (i > 0 && !isActive.get(webhookId)?.active)) {
        for (const r of rows.slice(i)) release.run(app.clock.now(), r.id)
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
      const claimed = (
        claimQuery.all(
          now + leaseMs,
          now,
          JSON.stringify([...busy.keys()]),
          perEndpoint,
          room * perEndpoint,
        ) as Record<string, unknown>[]
      ).map(toRow)
      const groups = new Map<string, ClaimedRow[]>()
      for (const row of claimed) {
        const g = groups.get(row.webhookId)
        if (g) g.push(row)
        else groups.set(row.webhookId, [row])
      }
      for (const [id, rows] of groups) {
        if (busy.size >= concurrency) {
          for (const r of rows) release.run(now, r.id)
          continue
        }
        startChain(id, rows)
      }
      if (claimed.length > 0) {
        nextDue = undefined
        worked = true
      }
    }
    if (nextDue === undefined)
      nextDue = (nextDueQuery.get(JSON.stringify([...busy.keys()])) as { t: number | null } | null)?.t ?? null
    // Chains in flight kick the worker when they end; until then wake at the next due retry.
    return { worked, nextAt: nextDue ?? null }
  }

  const worker = createLeasedWorker(app, {
    name: 'webhooks',
    recover() {
      // A previous process died holding claims: they are due again now (same webhook-id).
      sqlite
        .query(
          "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ? WHERE status = 'sending'",
        )
        .run(app.clock.now())
    },
    pass,
    idleMs: pollMs,
    async settle() {
      stopped = true
      // In-flight attempts finish (each is bounded by the timeout); what is left is recovered
      // as due on the next start.
      await Promise.race([Promise.allSettled([...busy.values()]), Bun.sleep(policy.timeoutMs + 1000)])
    },
  })
  kick = () => {
    nextDue = undefined
    worker.kick()
  }
  return { ...worker, kick }
}

/** The webhook worker, started. */
export const startWebhookWorker = (app: AppContext, options: WebhookWorkerOptions = {}) =>
  createWebhookWorker(app, options).start()
