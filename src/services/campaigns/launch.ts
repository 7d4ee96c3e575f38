import { and, eq, lte } from 'drizzle-orm'
import type { AppContext, Ctx } from '../../context'
import { outboxOf } from '../../db/outbox'
import { AUDIENCE_COPY_LOCK } from '../../db/postgres/lock-keys'
import { type CampaignRow, campaigns } from '../../db/schema'
import { inTransaction } from '../../db/transaction'
import { holdWorkLock } from '../../db/work-lock'
import { invalidField, ServiceError } from '../../errors'
import { afterCommit } from '../../lib/after-transaction'
import { countAudience } from './audience'
import type { CountedAudience } from './audience-size'
import { assertSendable } from './content'
import { campaignStatuses } from './fresh-status'
import { launchAtLocalTime, startAtLocalTime } from './local-time'
import { presentCampaign } from './present'
import { findCampaignRow } from './records'
import { resolveSender } from './sender'
import { assertTransition, OUTBOX_RULES, SENDING } from './states'

/** A status change under way: the send worker reads the campaign's status again for its next sends. */
const statusChanging = (app: AppContext | Ctx, id: string) =>
  campaignStatuses(outboxOf(app.store, OUTBOX_RULES)).changing(id)

/** Checks everything sending needs; throws the 422/409 that says what is missing. */
async function assertReady(app: AppContext, c: CampaignRow): Promise<void> {
  await assertSendable(app, c)
  if (c.channel === 'email') await resolveSender(app, c)
}

/**
 * Moves a campaign into `sending`: the audience is counted now (or was, just before, off the
 * event loop: `counted`) and copied by the worker.
 */
async function startSending(
  app: AppContext,
  c: CampaignRow,
  now: number,
  counted: CountedAudience = null,
): Promise<CampaignRow | null> {
  if (counted && 'refused' in counted) throw counted.refused
  const total = counted ? counted.total : await countAudience(app, c)
  // Still in the state it was read in: another process starting it at the same moment (the
  // scheduler's next slot, a second launch) finds it changed, and starts nothing.
  const [row] = await app.db
    .update(campaigns)
    .set({
      status: 'sending',
      launchedAt: now,
      startedAt: now,
      totalRecipients: total,
      snapshotCursor: null,
      snapshotDone: false,
      updatedAt: now,
    })
    .where(and(eq(campaigns.id, c.id), eq(campaigns.status, c.status)))
    .returning()
  return row ?? null
}

const launched = (row: CampaignRow) => ({
  id: row.id,
  status: row.status,
  total_recipients: row.totalRecipients,
  accepted: true as const,
})

/**
 * launch: draft → scheduled (scheduled_at ahead) or sending; scheduled → sending now;
 * paused → sending (resume where it stopped), or back to scheduled when it never started and
 * its time is still ahead.
 */
export async function launchCampaign(
  ctx: Ctx,
  id: string,
  input: { confirm: boolean },
  counted: CountedAudience = null,
) {
  const c = await findCampaignRow(ctx, id)
  if (input.confirm !== true) throw invalidField('confirm', 'must be true to launch a campaign')
  assertTransition(c.status, 'launch')
  await assertReady(ctx, c)
  statusChanging(ctx, id)
  const now = ctx.clock.now()
  const ahead = c.scheduledAt !== null && c.scheduledAt > now
  let row: CampaignRow
  if (c.sendAtLocal) row = await launchAtLocalTime(ctx, c, now, counted)
  else if (c.status === 'paused' && c.startedAt !== null) {
    row = (
      await ctx.db
        .update(campaigns)
        .set({ status: 'sending', updatedAt: now })
        .where(eq(campaigns.id, id))
        .returning()
    )[0]!
  } else if (ahead && c.status !== 'scheduled') {
    row = (
      await ctx.db
        .update(campaigns)
        .set({ status: 'scheduled', updatedAt: now })
        .where(eq(campaigns.id, id))
        .returning()
    )[0]!
  } else {
    const started = await startSending(ctx, c, now, counted)
    if (started) row = started
    else {
      // Launched meanwhile by another process: answered as if this call came second.
      row = await findCampaignRow(ctx, id)
      assertTransition(row.status, 'launch')
    }
  }
  ctx.workers.wake('send')
  return launched(row)
}

export async function pauseCampaign(ctx: Ctx, id: string) {
  const c = await findCampaignRow(ctx, id)
  assertTransition(c.status, 'pause')
  statusChanging(ctx, id)
  const row = (
    await ctx.db
      .update(campaigns)
      .set({ status: 'paused', updatedAt: ctx.clock.now() })
      .where(eq(campaigns.id, id))
      .returning()
  )[0]!
  return presentCampaign(row, null)
}

/**
 * First in a transaction that stops a campaign and drops its queue: waits for a chunk of its
 * audience another process is copying to commit, so that the drop sees those messages too, and
 * holds the next chunk back until this transaction ends.
 */
async function holdAudienceCopy(app: AppContext, campaignId: string): Promise<void> {
  await holdWorkLock(app.db, AUDIENCE_COPY_LOCK, campaignId)
}

/** cancel: what is still queued will never be sent; what is in flight finishes. */
export async function cancelCampaign(ctx: Ctx, id: string) {
  const c = await findCampaignRow(ctx, id)
  assertTransition(c.status, 'cancel')
  statusChanging(ctx, id)
  const now = ctx.clock.now()
  await holdAudienceCopy(ctx, id)
  await outboxOf(ctx.store, OUTBOX_RULES).cancelQueued(id, null)
  const row = (
    await ctx.db
      .update(campaigns)
      .set({ status: 'cancelled', snapshotDone: true, completedAt: now, updatedAt: now })
      .where(eq(campaigns.id, id))
      .returning()
  )[0]!
  return presentCampaign(row, null)
}

/**
 * sending → failed: the rest of the queue will not be sent. Only a campaign that is still
 * sending fails (one paused or cancelled meanwhile keeps its state and its queue).
 */
export async function failCampaign(app: AppContext, id: string, reason: string): Promise<boolean> {
  const now = app.clock.now()
  statusChanging(app, id)
  const failed = await inTransaction(app.sqlite, async () => {
    await holdAudienceCopy(app, id)
    const changed = await app.db
      .update(campaigns)
      .set({ status: 'failed', failureReason: reason, snapshotDone: true, completedAt: now, updatedAt: now })
      .where(and(eq(campaigns.id, id), eq(campaigns.status, SENDING)))
      .returning({ id: campaigns.id })
    if (changed.length === 0) return false
    await outboxOf(app.store, OUTBOX_RULES).cancelQueued(id, reason)
    return true
  })
  if (failed) app.log.warn('campaign failed', { campaign_id: id, reason })
  return failed
}

/**
 * The scheduler's job: scheduled campaigns whose time has come start sending. A campaign that
 * can no longer send (its sender lost verification, its list was deleted) fails with the reason.
 */
export async function startDueCampaigns(app: AppContext): Promise<number> {
  const now = app.clock.now()
  const due = await app.db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.status, 'scheduled'), lte(campaigns.scheduledAt, now)))
  for (const c of due) {
    try {
      await inTransaction(app.sqlite, async () => {
        await assertReady(app, c)
        if (c.sendAtLocal) await startAtLocalTime(app, c, now)
        // Started by another process's run of this job meanwhile: nothing to do.
        else await startSending(app, c, now)
      })
    } catch (err) {
      const reason = err instanceof ServiceError ? err.message : String(err)
      await inTransaction(app.sqlite, async () => {
        await holdAudienceCopy(app, c.id)
        const failed = await app.db
          .update(campaigns)
          .set({ status: 'failed', failureReason: reason, completedAt: now, updatedAt: now })
          .where(and(eq(campaigns.id, c.id), eq(campaigns.status, 'scheduled')))
          .returning({ id: campaigns.id })
        // A local-time campaign waits with its audience already queued.
        if (failed.length > 0 && c.launchedAt !== null)
          await outboxOf(app.store, OUTBOX_RULES).cancelQueued(c.id, reason)
        afterCommit(() => app.log.warn('scheduled campaign could not start', { campaign_id: c.id, reason }))
      })
    }
  }
  if (due.length > 0) app.workers.wake('send')
  return due.length
}
