import type { Database } from 'bun:sqlite'
import { eq, inArray } from 'drizzle-orm'
import type { DeferReason } from '../lib/enums'
import type { Store } from './client'
import type { CampaignMessageInsert, ContentRow, SentRow, SentWritten } from './outbox-insert'
import { pgOutbox } from './postgres/outbox'
import { quarterOf } from './rollup-counters'
import {
  type CampaignRow,
  type ClientRow,
  type ContactRow,
  campaigns,
  clients,
  contacts,
  type MessagePayloadRow,
  type MessageRow,
  messagePayloads,
  messages,
} from './schema'

// The outbox's SQL, prepared once per connection: claims and leases, the
// message status transitions, and the few campaign reads the send queue makes. Every write of
// `messages.status` goes through a transition here, so each has one statement and one guard;
// SQLite-only constructs (INSERT OR IGNORE / OR REPLACE) stay behind these names.

export interface OutboxRules {
  /** Campaign statuses that send nothing more (services/campaigns/states.ts). */
  stoppedCampaign: readonly string[]
}

/** Message statuses of work not done yet: waiting in the queue or claimed. */
export const OPEN_MESSAGE_STATUSES = ['queued', 'sending'] as const

const list = (values: readonly string[]) => values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')
const OPEN = list(OPEN_MESSAGE_STATUSES)
/** A message without campaign, journey or sequence: a transactional (or test) send. */
const TRANSACTIONAL = 'campaign_id IS NULL AND source_id IS NULL'
/** The message is still held by the claim whose lease ends at the parameter `lease`. */
const HELD_BY_CLAIM = (lease: string) => `status = 'sending' AND next_attempt_at = ${lease}`
/**
 * The transactional queue's own (partial) index, named: without statistics SQLite preferred
 * messages_campaign_due_idx (campaign_id IS NULL, status) and walked every queued journey and
 * sequence message at each claim (36 ms with 100,000 of them waiting, against 0.01 ms).
 */
const TRANSACTIONAL_QUEUE = 'messages INDEXED BY messages_transactional_idx'

function build(store: Store, rules: OutboxRules) {
  const { sqlite, db } = store
  const stopped = list(rules.stoppedCampaign)
  // A message coming back to the queue after its campaign stopped (it was in flight then) is
  // cancelled instead: nothing would ever claim it again.
  const backToQueue = `CASE WHEN (SELECT status FROM campaigns WHERE id = messages.campaign_id) IN (${stopped})
    THEN 'cancelled' ELSE 'queued' END`
  const q = {
    claimCampaign: sqlite.prepare<{ seq: number }, [number, string, number, number]>(
      `UPDATE messages SET status = 'sending', attempts = attempts + 1, next_attempt_at = ?1
       WHERE seq IN (
         SELECT seq FROM messages WHERE campaign_id = ?2 AND status = 'queued' AND next_attempt_at <= ?3
         ORDER BY next_attempt_at, seq LIMIT ?4
       ) RETURNING seq`,
    ),
    claimTransactional: sqlite.prepare<{ seq: number }, [number, number, number]>(
      `UPDATE messages SET status = 'sending', attempts = attempts + 1, next_attempt_at = ?1
       WHERE seq IN (
         SELECT seq FROM ${TRANSACTIONAL_QUEUE} WHERE ${TRANSACTIONAL} AND status = 'queued' AND next_attempt_at <= ?2
         ORDER BY seq LIMIT ?3
       ) RETURNING seq`,
    ),
    nextTransactional: sqlite.prepare<{ at: number | null }, []>(
      `SELECT min(next_attempt_at) AS at FROM ${TRANSACTIONAL_QUEUE} WHERE ${TRANSACTIONAL} AND status = 'queued'`,
    ),
    // The condition is messages_inflight_idx's: the earliest lease end is one index read.
    nextLeaseEnd: sqlite.prepare<{ at: number | null }, []>(
      "SELECT min(next_attempt_at) AS at FROM messages WHERE status = 'sending'",
    ),
    // A message back from a lease is due now: no sending limit holds it (a stale reason would).
    // Only leases that ran out: a live one may belong to another process still sending it.
    expireLeases: sqlite.prepare<never, [number]>(
      `UPDATE messages SET status = ${backToQueue}, defer_reason = NULL
       WHERE status = 'sending' AND next_attempt_at <= ?1`,
    ),
    // Outcomes are written only under the lease the send was made in (next_attempt_at is its end
    // while sending): once it ran out, another claim may have sent the message again, and its
    // outcome stands. A send's success is still written while its expired lease is unclaimed.
    sent: sqlite.prepare<never, [number, string, string | null, number, number]>(
      `UPDATE messages SET status = 'sent', provider = ?2, provider_message_id = ?3, sent_at = ?4, error = NULL
       WHERE seq = ?1 AND next_attempt_at = ?5`,
    ),
    // Sent and accepted at once (capture, SMTP 250), in one statement: the hot path. The same
    // guard as `delivered`: delivered once, never after a bounce. Returns the new status and
    // delivered_at, so the caller knows whether this made it delivered.
    sentDelivered: sqlite.prepare<
      { status: string; delivered_at: number | null },
      [number, string, string | null, number, number]
    >(
      `UPDATE messages SET
         status = CASE WHEN status = 'bounced' THEN 'bounced' ELSE 'delivered' END,
         delivered_at = CASE WHEN delivered_at IS NULL AND status <> 'bounced' THEN ?4 ELSE delivered_at END,
         provider = ?2, provider_message_id = ?3, sent_at = ?4, error = NULL
       WHERE seq = ?1 AND next_attempt_at = ?5 RETURNING status, delivered_at`,
    ),
    // The one guard of "delivered": once, and never after a bounce.
    delivered: sqlite.prepare<never, [number, number]>(
      `UPDATE messages SET status = 'delivered', delivered_at = ?2
       WHERE seq = ?1 AND delivered_at IS NULL AND status <> 'bounced'`,
    ),
    content: sqlite.prepare<never, [number, string | null, string | null, string | null, string]>(
      `INSERT OR REPLACE INTO message_contents (message_seq, subject, body_html, body_text, headers)
       VALUES (?1, ?2, ?3, ?4, ?5)`,
    ),
    // The other outcomes only while the send's own claim still holds it.
    retry: sqlite.prepare<never, [number, string, string, number, number]>(
      `UPDATE messages SET provider = ?2, error = ?3, next_attempt_at = ?4, defer_reason = NULL,
         status = ${backToQueue} WHERE seq = ?1 AND ${HELD_BY_CLAIM('?5')}`,
    ),
    // A provider's later report that a message it took was not delivered: it does not undo a
    // delivery, nor count twice.
    reportedFailed: sqlite.prepare<never, [number, string]>(
      `UPDATE messages SET status = 'failed', error = ?2 WHERE seq = ?1 AND status NOT IN ('failed', 'delivered')`,
    ),
    failed: sqlite.prepare<never, [number, string | null, string, number]>(
      `UPDATE messages SET status = 'failed', provider = coalesce(?2, provider), error = ?3
       WHERE seq = ?1 AND ${HELD_BY_CLAIM('?4')}`,
    ),
    skipped: sqlite.prepare<never, [number, string, number]>(
      `UPDATE messages SET status = 'skipped', skip_reason = ?2 WHERE seq = ?1 AND ${HELD_BY_CLAIM('?3')}`,
    ),
    // The reason is written with the deferral itself: no other write tells why a message waits.
    deferred: sqlite.prepare<never, [number, number, DeferReason | null, number]>(
      `UPDATE messages SET attempts = max(attempts - 1, 0), next_attempt_at = ?2, defer_reason = ?3,
         status = ${backToQueue} WHERE seq = ?1 AND ${HELD_BY_CLAIM('?4')}`,
    ),
    cancelled: sqlite.prepare<never, [number, string | null, number]>(
      `UPDATE messages SET status = 'cancelled', error = ?2 WHERE seq = ?1 AND ${HELD_BY_CLAIM('?3')}`,
    ),
    cancelQueued: sqlite.prepare<never, [string, string | null]>(
      "UPDATE messages SET status = 'cancelled', error = ?2 WHERE campaign_id = ?1 AND status = 'queued'",
    ),
    bounced: sqlite.prepare<never, [number, number]>(
      "UPDATE messages SET status = 'bounced', bounced_at = coalesce(bounced_at, ?2) WHERE seq = ?1",
    ),
    queueCampaignMessage: sqlite.prepare<
      never,
      [string, string, string, string, string, string, number, number]
    >(
      `INSERT OR IGNORE INTO messages (id, client_id, campaign_id, contact_id, channel, to_address, status, next_attempt_at, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'queued', ?8, ?7)`,
    ),
    // A/B tests: the queued messages to draw the groups from, a test message's variant and due
    // time, and the rest released with the winner.
    campaignQueued: sqlite.prepare<{ seq: number; contact_id: string }, [string]>(
      "SELECT seq, contact_id FROM messages WHERE campaign_id = ?1 AND status = 'queued'",
    ),
    setVariant: sqlite.prepare<never, [number, number, number]>(
      'UPDATE messages SET variant = ?2, next_attempt_at = ?3 WHERE seq = ?1',
    ),
    releaseRest: sqlite.prepare<never, [string, number, number]>(
      "UPDATE messages SET variant = ?2, next_attempt_at = ?3 WHERE campaign_id = ?1 AND status = 'queued' AND variant IS NULL",
    ),
    queueMessage: sqlite.prepare<{ seq: number }, [string, string, string, string, string, number]>(
      `INSERT INTO messages (id, client_id, contact_id, channel, to_address, status, next_attempt_at, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6, ?6) RETURNING seq`,
    ),
    campaignMessages: sqlite.prepare<{ n: number }, [string]>(
      'SELECT count(*) AS n FROM messages WHERE campaign_id = ?1',
    ),
    campaignOpen: sqlite.prepare<{ one: number }, [string]>(
      `SELECT 1 AS one FROM messages WHERE campaign_id = ?1 AND status IN (${OPEN}) LIMIT 1`,
    ),
    campaignStatus: sqlite.prepare<{ status: string }, [string]>(
      'SELECT status FROM campaigns WHERE id = ?1',
    ),
    campaignTotals: sqlite.prepare<{ failed: number; sent: number; status: string }, [string]>(
      'SELECT failed, sent, status FROM campaigns WHERE id = ?1',
    ),
    campaignsIn: sqlite.prepare<{ id: string; snapshot_done: number }, [string]>(
      'SELECT id, snapshot_done FROM campaigns WHERE status = ?1 ORDER BY id',
    ),
    copiesIn: sqlite.prepare<{ id: string }, [string]>(
      'SELECT id FROM campaigns WHERE status = ?1 AND snapshot_done = 0 AND launched_at IS NOT NULL ORDER BY id',
    ),
    // The client's analytics totals, written with each send: a few rows per quarter-hour,
    // where counting messages by sent_at walked the client's whole outbox.
    sentSince: sqlite.prepare<{ n: number }, [string, number]>(
      'SELECT coalesce(sum(sent), 0) AS n FROM analytics_totals WHERE client_id = ?1 AND bucket >= ?2',
    ),
  }
  const changed = (r: { changes: number }) => r.changes > 0

  return {
    // Claims and leases.
    /** Claims up to `limit` due messages of one campaign until `leaseUntil`; their seqs. */
    claimCampaign: async (campaignId: string, now: number, leaseUntil: number, limit: number) =>
      (await q.claimCampaign.all(leaseUntil, campaignId, now, limit)).map((r) => r.seq),
    /** Claims up to `limit` due transactional messages. */
    claimTransactional: async (now: number, leaseUntil: number, limit: number) =>
      (await q.claimTransactional.all(leaseUntil, now, limit)).map((r) => r.seq),
    /** When the next queued transactional message comes due; null when none waits. */
    nextTransactional: async () => (await q.nextTransactional.get())?.at ?? null,
    /** When the first lease held now runs out (this process's or another's); null when none. */
    nextLeaseEnd: async () => (await q.nextLeaseEnd.get())?.at ?? null,
    /**
     * Claims whose lease ran out (their process died, or gave up on them) are queued again, or
     * cancelled when their campaign stopped meanwhile; how many.
     */
    expireLeases: async (now: number) => (await q.expireLeases.run(now)).changes,
    claimedRows: async (seqs: number[]): Promise<MessageRow[]> =>
      await db.select().from(messages).where(inArray(messages.seq, seqs)).orderBy(messages.seq),
    contactsByIds: async (ids: string[]): Promise<ContactRow[]> =>
      await db.select().from(contacts).where(inArray(contacts.id, ids)),

    // Status transitions.
    queueCampaignMessage: async (
      id: string,
      clientId: string,
      campaignId: string,
      contactId: string,
      channel: string,
      to: string,
      now: number,
      /** When it may be sent: now, or later (held for an A/B decision, a recipient's local hour). */
      due: number = now,
    ) => void q.queueCampaignMessage.run(id, clientId, campaignId, contactId, channel, to, now, due),
    /** Several of a campaign's messages (the audience copy's chunk), each as queueCampaignMessage. */
    queueCampaignMessages: async (rows: readonly CampaignMessageInsert[]) => {
      for (const r of rows)
        q.queueCampaignMessage.run(r.id, r.clientId, r.campaignId, r.contactId, r.channel, r.to, r.now, r.due)
    },
    /** An A/B campaign's queued messages (seq and contact), to draw the test groups from. */
    campaignQueued: async (campaignId: string) => await q.campaignQueued.all(campaignId),
    /** A test message: its variant, due at `due`. */
    setVariant: async (seq: number, variant: number, due: number) => void q.setVariant.run(seq, variant, due),
    /** The messages held for the decision get the winner and are due at `now`; how many. */
    releaseRest: async (campaignId: string, winner: number, now: number) =>
      (await q.releaseRest.run(campaignId, winner, now)).changes,
    /** A message of its own (no campaign), queued now; its seq. */
    queueMessage: async (
      id: string,
      clientId: string,
      contactId: string,
      channel: string,
      to: string,
      now: number,
    ) => (await q.queueMessage.get(id, clientId, contactId, channel, to, now))!.seq,
    /** True when this made it delivered (the caller then records the event and counter). */
    delivered: async (seq: number, at: number) => changed(await q.delivered.run(seq, at)),
    // A claimed message's outcomes, each written only while the claim that ends at `lease` still
    // holds it (true when it was).
    retry: async (seq: number, lease: number, provider: string, error: string, at: number) =>
      changed(await q.retry.run(seq, provider, error, at, lease)),
    /** `provider` null keeps the one recorded. */
    failed: async (seq: number, lease: number, provider: string | null, error: string) =>
      changed(await q.failed.run(seq, provider, error, lease)),
    /** A provider's report after the send that it was not delivered; true when this made it failed. */
    reportedFailed: async (seq: number, error: string) => changed(await q.reportedFailed.run(seq, error)),
    skipped: async (seq: number, lease: number, reason: string) =>
      changed(await q.skipped.run(seq, reason, lease)),
    /** Back in the queue until `at`, the attempt not counted (throttle, cap, paused), and why. */
    deferred: async (seq: number, lease: number, at: number, reason: DeferReason | null) =>
      changed(await q.deferred.run(seq, at, reason, lease)),
    cancelled: async (seq: number, lease: number, reason: string | null) =>
      changed(await q.cancelled.run(seq, reason, lease)),
    /** Everything a campaign still had queued will never be sent. */
    cancelQueued: async (campaignId: string, reason: string | null) =>
      void q.cancelQueued.run(campaignId, reason),
    bounced: async (seq: number, at: number) => void q.bounced.run(seq, at),

    /**
     * `sent`, or `sentDelivered` where the provider delivered at once, for each of a batch's
     * sends: the seqs written (under their send's lease) and those this made delivered.
     */
    sentMany: async (rows: readonly SentRow[], at: number): Promise<SentWritten> => {
      const written = new Set<number>()
      const nowDelivered = new Set<number>()
      for (const r of rows) {
        if (!r.delivered) {
          if (changed(q.sent.run(r.seq, r.provider, r.providerMessageId, at, r.lease))) written.add(r.seq)
          continue
        }
        const row = q.sentDelivered.get(r.seq, r.provider, r.providerMessageId, at, r.lease)
        if (row) written.add(r.seq)
        if (row?.status === 'delivered' && row.delivered_at === at) nowDelivered.add(r.seq)
      }
      return { written, nowDelivered }
    },
    storeContents: async (rows: readonly ContentRow[]) => {
      for (const r of rows) q.content.run(r.seq, r.subject, r.html, r.text, JSON.stringify(r.headers))
    },
    payloadOf: async (seq: number): Promise<MessagePayloadRow | undefined> =>
      (await db.select().from(messagePayloads).where(eq(messagePayloads.messageSeq, seq)).limit(1))[0],
    storePayload: async (payload: MessagePayloadRow) => {
      await db.insert(messagePayloads).values(payload)
    },

    // What a plan is made of.
    campaignRow: async (id: string): Promise<CampaignRow | undefined> =>
      (await db.select().from(campaigns).where(eq(campaigns.id, id)).limit(1))[0],
    clientRow: async (id: string): Promise<ClientRow | undefined> =>
      (await db.select().from(clients).where(eq(clients.id, id)).limit(1))[0],

    // Campaign reads of the send queue.
    campaignMessageCount: async (campaignId: string) => (await q.campaignMessages.get(campaignId))!.n,
    campaignHasOpenMessages: async (campaignId: string) => (await q.campaignOpen.get(campaignId)) !== null,
    campaignStatus: async (campaignId: string) => (await q.campaignStatus.get(campaignId))?.status ?? null,
    campaignTotals: async (campaignId: string) => (await q.campaignTotals.get(campaignId)) ?? null,
    campaignsIn: async (status: string) => await q.campaignsIn.all(status),
    /** Campaigns in `status` whose launched audience is not copied yet. */
    unfinishedCopiesIn: async (status: string) => (await q.copiesIn.all(status)).map((r) => r.id),
    /**
     * A client's messages sent since the start of `since`'s quarter-hour (the hourly cap after a
     * restart, from the hour's start).
     */
    sentSince: async (clientId: string, since: number) =>
      (await q.sentSince.get(clientId, quarterOf(since)))!.n,
  }
}

export type Outbox = ReturnType<typeof build>

const built = new WeakMap<Database, Outbox>()

/** The outbox statements of a store, prepared on first use and reused for the connection's life. */
export function outboxOf(store: Store, rules: OutboxRules): Outbox {
  let o = built.get(store.sqlite)
  if (!o) {
    // PostgreSQL has its own twin of these statements, written with drizzle.
    o =
      store.dialect === 'postgres'
        ? (pgOutbox(store, rules.stoppedCampaign, OPEN_MESSAGE_STATUSES) satisfies Outbox)
        : build(store, rules)
    built.set(store.sqlite, o)
  }
  return o
}
