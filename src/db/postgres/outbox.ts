import { eq, inArray, type SQL, sql } from 'drizzle-orm'
import type { DeferReason } from '../../lib/enums'
import type { Store } from '../client'
import type { CampaignMessageInsert, ContentRow, SentRow, SentWritten } from '../outbox-insert'
import { rawRows, rawRun } from '../raw'
import { quarterOf } from '../rollup-counters'
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
} from '../schema'

// The outbox on PostgreSQL: the same transitions and guards as the SQLite statements in
// ../outbox.ts, written as drizzle `sql` so each joins the caller's transaction. Raw bigint
// columns come back as strings here, hence the Number()s and ::int casts. JSON goes in as text
// cast to jsonb: Bun's client would JSON-encode a string it is told is jsonb a second time.

const list = (values: readonly string[]) =>
  sql.raw(values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', '))

/** A message without campaign, journey or sequence: a transactional (or test) send. */
const TRANSACTIONAL = sql.raw('campaign_id IS NULL AND source_id IS NULL')
/** The message is still held by the claim whose lease ends at `lease`. */
const heldByClaim = (lease: number) => sql`status = 'sending' AND next_attempt_at = ${lease}`

/**
 * `stoppedCampaign`: campaign statuses that send nothing more; `open`: message statuses of work
 * not done yet (both as ../outbox.ts has them). Its type is checked against the SQLite outbox's
 * where outboxOf returns it.
 */
export function pgOutbox(store: Store, stoppedCampaign: readonly string[], open: readonly string[]) {
  const { db } = store
  const rows = <T>(q: SQL) => rawRows<T>(db, q)
  const run = (q: SQL) => rawRun(db, q)
  const stopped = list(stoppedCampaign)
  const OPEN = list(open)
  const backToQueue = sql`CASE WHEN (SELECT status FROM campaigns WHERE id = messages.campaign_id) IN (${stopped})
    THEN 'cancelled' ELSE 'queued' END`
  const seqs = (r: { seq: unknown }[]) => r.map((x) => Number(x.seq))

  return {
    // Several processes may claim at once on PostgreSQL: SKIP LOCKED lets each take other rows
    // instead of waiting on (and then re-checking) the ones another claim holds.
    claimCampaign: async (campaignId: string, now: number, leaseUntil: number, limit: number) =>
      seqs(
        await rows<{
          seq: string
        }>(sql`UPDATE messages SET status = 'sending', attempts = attempts + 1, next_attempt_at = ${leaseUntil}
          WHERE seq IN (
            SELECT seq FROM messages WHERE campaign_id = ${campaignId} AND status = 'queued' AND next_attempt_at <= ${now}
            ORDER BY next_attempt_at, seq LIMIT ${limit} FOR UPDATE SKIP LOCKED
          ) RETURNING seq`),
      ).sort((a, b) => a - b),
    claimTransactional: async (now: number, leaseUntil: number, limit: number) =>
      seqs(
        await rows<{
          seq: string
        }>(sql`UPDATE messages SET status = 'sending', attempts = attempts + 1, next_attempt_at = ${leaseUntil}
          WHERE seq IN (
            SELECT seq FROM messages WHERE ${TRANSACTIONAL} AND status = 'queued' AND next_attempt_at <= ${now}
            ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED
          ) RETURNING seq`),
      ).sort((a, b) => a - b),
    nextTransactional: async () => {
      const [r] = await rows<{ at: string | null }>(
        sql`SELECT min(next_attempt_at) AS at FROM messages WHERE ${TRANSACTIONAL} AND status = 'queued'`,
      )
      return r?.at == null ? null : Number(r.at)
    },
    nextLeaseEnd: async () => {
      const [r] = await rows<{ at: string | null }>(
        sql`SELECT min(next_attempt_at) AS at FROM messages WHERE status = 'sending'`,
      )
      return r?.at == null ? null : Number(r.at)
    },
    expireLeases: async (now: number) =>
      await run(sql`UPDATE messages SET status = ${backToQueue}, defer_reason = NULL
        WHERE status = 'sending' AND next_attempt_at <= ${now}`),
    claimedRows: async (seqList: number[]): Promise<MessageRow[]> =>
      await db.select().from(messages).where(inArray(messages.seq, seqList)).orderBy(messages.seq),
    contactsByIds: async (ids: string[]): Promise<ContactRow[]> =>
      await db.select().from(contacts).where(inArray(contacts.id, ids)),

    queueCampaignMessage: async (
      id: string,
      clientId: string,
      campaignId: string,
      contactId: string,
      channel: string,
      to: string,
      now: number,
      due: number = now,
    ) =>
      void (await run(sql`INSERT INTO messages (id, client_id, campaign_id, contact_id, channel, to_address, status, next_attempt_at, created_at)
        VALUES (${id}, ${clientId}, ${campaignId}, ${contactId}, ${channel}, ${to}, 'queued', ${due}, ${now})
        ON CONFLICT DO NOTHING`)),
    // One statement per slice of the chunk, not one per recipient: the copy runs in a transaction,
    // and the store runs one at a time. 1,000 rows are 8,000 parameters (the limit is 65,535).
    queueCampaignMessages: async (rows: readonly CampaignMessageInsert[]) => {
      for (let i = 0; i < rows.length; i += 1_000) {
        const values = rows
          .slice(i, i + 1_000)
          .map(
            (r) =>
              sql`(${r.id}, ${r.clientId}, ${r.campaignId}, ${r.contactId}, ${r.channel}, ${r.to}, 'queued', ${r.due}::bigint, ${r.now}::bigint)`,
          )
        await run(sql`INSERT INTO messages (id, client_id, campaign_id, contact_id, channel, to_address, status, next_attempt_at, created_at)
          VALUES ${sql.join(values, sql`, `)} ON CONFLICT DO NOTHING`)
      }
    },
    campaignQueued: async (campaignId: string) =>
      (
        await rows<{ seq: string; contact_id: string }>(
          sql`SELECT seq, contact_id FROM messages WHERE campaign_id = ${campaignId} AND status = 'queued'`,
        )
      ).map((r) => ({ seq: Number(r.seq), contact_id: r.contact_id })),
    setVariant: async (seq: number, variant: number, due: number) =>
      void (await run(
        sql`UPDATE messages SET variant = ${variant}, next_attempt_at = ${due} WHERE seq = ${seq}`,
      )),
    releaseRest: async (campaignId: string, winner: number, now: number) =>
      await run(sql`UPDATE messages SET variant = ${winner}, next_attempt_at = ${now}
        WHERE campaign_id = ${campaignId} AND status = 'queued' AND variant IS NULL`),
    queueMessage: async (
      id: string,
      clientId: string,
      contactId: string,
      channel: string,
      to: string,
      now: number,
    ) => {
      const [r] = await rows<{ seq: string }>(
        sql`INSERT INTO messages (id, client_id, contact_id, channel, to_address, status, next_attempt_at, created_at)
          VALUES (${id}, ${clientId}, ${contactId}, ${channel}, ${to}, 'queued', ${now}, ${now}) RETURNING seq`,
      )
      return Number(r!.seq)
    },
    delivered: async (seq: number, at: number) =>
      (await run(sql`UPDATE messages SET status = 'delivered', delivered_at = ${at}
        WHERE seq = ${seq} AND delivered_at IS NULL AND status <> 'bounced'`)) > 0,
    // A claimed message's outcomes, each written only while the claim whose lease ends at
    // `lease` still holds it (next_attempt_at is that end while sending): once it ran out,
    // another claim may have sent the message again, and its outcome stands.
    retry: async (seq: number, lease: number, provider: string, error: string, at: number) =>
      (await run(sql`UPDATE messages SET provider = ${provider}, error = ${error}, next_attempt_at = ${at},
        defer_reason = NULL, status = ${backToQueue} WHERE seq = ${seq} AND ${heldByClaim(lease)}`)) > 0,
    reportedFailed: async (seq: number, error: string) =>
      (await run(sql`UPDATE messages SET status = 'failed', error = ${error}
        WHERE seq = ${seq} AND status NOT IN ('failed', 'delivered')`)) > 0,
    failed: async (seq: number, lease: number, provider: string | null, error: string) =>
      (await run(sql`UPDATE messages SET status = 'failed', provider = coalesce(${provider}::text, provider), error = ${error}
        WHERE seq = ${seq} AND ${heldByClaim(lease)}`)) > 0,
    skipped: async (seq: number, lease: number, reason: string) =>
      (await run(
        sql`UPDATE messages SET status = 'skipped', skip_reason = ${reason} WHERE seq = ${seq} AND ${heldByClaim(lease)}`,
      )) > 0,
    deferred: async (seq: number, lease: number, at: number, reason: DeferReason | null) =>
      (await run(sql`UPDATE messages SET attempts = greatest(attempts - 1, 0), next_attempt_at = ${at},
        defer_reason = ${reason}, status = ${backToQueue} WHERE seq = ${seq} AND ${heldByClaim(lease)}`)) > 0,
    cancelled: async (seq: number, lease: number, reason: string | null) =>
      (await run(
        sql`UPDATE messages SET status = 'cancelled', error = ${reason} WHERE seq = ${seq} AND ${heldByClaim(lease)}`,
      )) > 0,
    cancelQueued: async (campaignId: string, reason: string | null) =>
      void (await run(
        sql`UPDATE messages SET status = 'cancelled', error = ${reason} WHERE campaign_id = ${campaignId} AND status = 'queued'`,
      )),
    bounced: async (seq: number, at: number) =>
      void (await run(
        sql`UPDATE messages SET status = 'bounced', bounced_at = coalesce(bounced_at, ${at}) WHERE seq = ${seq}`,
      )),

    // A batch's sends in one statement each, as JSON unpacked by jsonb_array_elements: a round
    // trip per message bounded the send rate here. A bounce reported before the outcome is
    // written (feedback can outrun the writer) stays a bounce. Written under the send's lease
    // only (a success is kept while that lease, run out, is not claimed again).
    sentMany: async (sent: readonly SentRow[], at: number): Promise<SentWritten> => {
      if (sent.length === 0) return { written: new Set(), nowDelivered: new Set() }
      const json = JSON.stringify(
        sent.map((r) => [r.seq, r.provider, r.providerMessageId, r.delivered, r.lease]),
      )
      const changed = await rows<{
        seq: string
        status: string
        delivered_at: string | null
        delivered: boolean
      }>(
        sql`UPDATE messages SET
            status = CASE WHEN messages.status = 'bounced' THEN 'bounced' WHEN (r->>3)::boolean THEN 'delivered' ELSE 'sent' END,
            delivered_at = CASE WHEN (r->>3)::boolean AND messages.delivered_at IS NULL AND messages.status <> 'bounced'
              THEN ${at}::bigint ELSE messages.delivered_at END,
            provider = r->>1, provider_message_id = r->>2, sent_at = ${at}, error = NULL
          FROM jsonb_array_elements(${json}::text::jsonb) AS b(r)
          WHERE messages.seq = (r->>0)::bigint AND messages.next_attempt_at = (r->>4)::bigint
          RETURNING messages.seq, messages.status, messages.delivered_at, (r->>3)::boolean AS delivered`,
      )
      return {
        written: new Set(changed.map((r) => Number(r.seq))),
        nowDelivered: new Set(
          changed
            .filter((r) => r.delivered && r.status === 'delivered' && Number(r.delivered_at) === at)
            .map((r) => Number(r.seq)),
        ),
      }
    },
    // As parameters rather than JSON: bodies are most of the bytes, and jsonb parsing them again
    // cost a third of the insert.
    storeContents: async (contents: readonly ContentRow[]) => {
      if (contents.length === 0) return
      const values = contents.map(
        (c) =>
          sql`(${c.seq}::bigint, ${c.subject}, ${c.html}, ${c.text}, ${JSON.stringify(c.headers)}::text::jsonb)`,
      )
      await run(sql`INSERT INTO message_contents (message_seq, subject, body_html, body_text, headers)
        VALUES ${sql.join(values, sql`, `)}
        ON CONFLICT (message_seq) DO UPDATE SET subject = excluded.subject, body_html = excluded.body_html,
          body_text = excluded.body_text, headers = excluded.headers`)
    },
    payloadOf: async (seq: number): Promise<MessagePayloadRow | undefined> =>
      (await db.select().from(messagePayloads).where(eq(messagePayloads.messageSeq, seq)).limit(1))[0],
    storePayload: async (payload: MessagePayloadRow) => {
      await db.insert(messagePayloads).values(payload)
    },

    campaignRow: async (id: string): Promise<CampaignRow | undefined> =>
      (await db.select().from(campaigns).where(eq(campaigns.id, id)).limit(1))[0],
    clientRow: async (id: string): Promise<ClientRow | undefined> =>
      (await db.select().from(clients).where(eq(clients.id, id)).limit(1))[0],

    campaignMessageCount: async (campaignId: string) =>
      (
        await rows<{ n: number }>(
          sql`SELECT count(*)::int AS n FROM messages WHERE campaign_id = ${campaignId}`,
        )
      )[0]!.n,
    campaignHasOpenMessages: async (campaignId: string) =>
      (
        await rows<{ one: number }>(
          sql`SELECT 1 AS one FROM messages WHERE campaign_id = ${campaignId} AND status IN (${OPEN}) LIMIT 1`,
        )
      ).length > 0,
    campaignStatus: async (campaignId: string) =>
      (await rows<{ status: string }>(sql`SELECT status FROM campaigns WHERE id = ${campaignId}`))[0]
        ?.status ?? null,
    campaignTotals: async (campaignId: string) => {
      const [r] = await rows<{ failed: string; sent: string; status: string }>(
        sql`SELECT failed, sent, status FROM campaigns WHERE id = ${campaignId}`,
      )
      return r ? { failed: Number(r.failed), sent: Number(r.sent), status: r.status } : null
    },
    // snapshot_done is a boolean here; callers only test it for truth.
    campaignsIn: async (status: string) =>
      (
        await rows<{ id: string; snapshot_done: boolean }>(
          sql`SELECT id, snapshot_done FROM campaigns WHERE status = ${status} ORDER BY id`,
        )
      ).map((r) => ({ id: r.id, snapshot_done: r.snapshot_done ? 1 : 0 })),
    unfinishedCopiesIn: async (status: string) =>
      (
        await rows<{ id: string }>(
          sql`SELECT id FROM campaigns WHERE status = ${status} AND NOT snapshot_done AND launched_at IS NOT NULL ORDER BY id`,
        )
      ).map((r) => r.id),
    // The analytics totals written with each send, as on SQLite (../outbox.ts).
    sentSince: async (clientId: string, since: number) =>
      (
        await rows<{ n: number }>(
          sql`SELECT coalesce(sum(sent), 0)::int AS n FROM analytics_totals WHERE client_id = ${clientId} AND bucket >= ${quarterOf(since)}`,
        )
      )[0]!.n,
  }
}
