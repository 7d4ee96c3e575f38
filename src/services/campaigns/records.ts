import { and, eq, type SQL, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import type { Db } from '../../db/client'
import { DIALECT } from '../../db/dialect'
import { paginate } from '../../db/paginate'
import { likeIgnoringAsciiCase } from '../../db/postgres/like'
import { rawRun } from '../../db/raw'
import {
  type CampaignRow,
  campaigns,
  campaignVariantCounts,
  lists,
  segments,
  senders,
  templates,
} from '../../db/schema'
import { findVisible, listFilter, ownerForCreate } from '../../db/tenant'
import { type FieldError, notFound, validationFailed } from '../../errors'
import { newId, parseId } from '../../lib/ids'
import { escapeLike } from '../../lib/like'
import { parseIsoDateTime } from '../../lib/time'
import { checkAbTest } from './ab-test'
import { assertInlineParses } from './content'
import { deferralOf, deferralsOf } from './deferred'
import type { CampaignInput, ListCampaignsQuery } from './inputs'
import { checkLaunchedLocalTime, checkLocalTime } from './local-time-checks'
import { presentCampaign } from './present'
import { assertTransition } from './states'

/** Body references may be UUIDs (any case) or prefixed ids (`lst_…`); stored as lower-case UUIDs. */
function normalizeRefs<T extends Partial<CampaignInput>>(input: T): T {
  const out = { ...input }
  for (const k of ['template_id', 'list_id', 'segment_id', 'sender_id'] as const) {
    const v = out[k]
    if (typeof v === 'string') out[k] = parseId(v) ?? v
  }
  return out
}

export async function findCampaignRow(ctx: Ctx, id: string): Promise<CampaignRow> {
  const row = await findVisible(ctx.db, ctx.actor, campaigns, id)
  if (!row) throw notFound('Campaign')
  return row
}

type Refs = Pick<CampaignRow, 'templateId' | 'listId' | 'segmentId' | 'senderId' | 'channel'>

/** Every reference must name a record of the campaign's own client, else 422. */
async function checkReferences(db: Db, clientId: string, refs: Refs, errors: FieldError[]): Promise<void> {
  const owned = async (table: typeof lists | typeof segments | typeof senders, id: string) =>
    (
      await db
        .select({ id: table.id })
        .from(table)
        .where(and(eq(table.id, id), eq(table.clientId, clientId)))
        .limit(1)
    )[0] !== undefined
  if (refs.templateId) {
    const t = (
      await db
        .select({ channel: templates.channel })
        .from(templates)
        .where(and(eq(templates.id, refs.templateId), eq(templates.clientId, clientId)))
        .limit(1)
    )[0]
    if (!t) errors.push({ field: 'template_id', message: 'no such template in this client' })
    else if (t.channel !== refs.channel)
      errors.push({
        field: 'template_id',
        message: `is a ${t.channel} template; this campaign sends ${refs.channel}`,
      })
  }
  if (refs.listId && !(await owned(lists, refs.listId)))
    errors.push({ field: 'list_id', message: 'no such list in this client' })
  if (refs.segmentId && !(await owned(segments, refs.segmentId)))
    errors.push({ field: 'segment_id', message: 'no such segment in this client' })
  if (refs.listId && refs.segmentId)
    errors.push({ field: 'segment_id', message: 'give either list_id or segment_id, not both' })
  if (refs.senderId && !(await owned(senders, refs.senderId)))
    errors.push({ field: 'sender_id', message: 'no such sender in this client' })
}

function parseSchedule(value: string | null | undefined, errors: FieldError[]): number | null | undefined {
  if (value === undefined || value === null) return value
  const ms = parseIsoDateTime(value)
  if (ms === null) errors.push({ field: 'scheduled_at', message: 'must be an ISO 8601 date-time' })
  return ms ?? undefined
}

export async function createCampaign(ctx: Ctx, raw: CampaignInput, clientIdParam?: string) {
  const input = normalizeRefs(raw)
  const clientId = await ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  assertInlineParses(input)
  const errors: FieldError[] = []
  const scheduledAt = parseSchedule(input.scheduled_at, errors)
  checkLocalTime(input.send_at_local ?? null, input.ab_test, errors)
  const values = {
    channel: input.channel ?? 'email',
    templateId: input.template_id ?? null,
    listId: input.list_id ?? null,
    segmentId: input.segment_id ?? null,
    senderId: input.sender_id ?? null,
  }
  await checkReferences(ctx.db, clientId, values, errors)
  const ab = await checkAbTest(ctx.db, clientId, values.channel, input, null, errors)
  if (errors.length > 0) throw validationFailed(errors)
  const now = ctx.clock.now()
  const row = (
    await ctx.db
      .insert(campaigns)
      .values({
        id: newId(),
        clientId,
        name: input.name,
        subject: input.subject ?? null,
        bodyHtml: input.body_html ?? null,
        bodyText: input.body_text ?? null,
        scheduledAt: scheduledAt ?? null,
        sendAtLocal: input.send_at_local ?? null,
        variants: ab.variants ?? null,
        abTest: ab.abTest ?? null,
        ...values,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
  )[0]!
  return presentCampaign(row, null)
}

export async function updateCampaign(ctx: Ctx, id: string, rawPatch: Partial<CampaignInput>) {
  const patch = normalizeRefs(rawPatch)
  const current = await findCampaignRow(ctx, id)
  assertTransition(current.status, 'update')
  assertInlineParses(patch)
  const errors: FieldError[] = []
  const scheduledAt = parseSchedule(patch.scheduled_at, errors)
  const pick = <T>(value: T | undefined, fallback: T) => (value === undefined ? fallback : value)
  const refs: Refs = {
    channel: patch.channel ?? current.channel,
    templateId: pick(patch.template_id, current.templateId),
    listId: pick(patch.list_id, current.listId),
    segmentId: pick(patch.segment_id, current.segmentId),
    senderId: pick(patch.sender_id, current.senderId),
  }
  // The audience of a campaign that has started sending is its snapshot; it cannot change.
  if (current.launchedAt !== null && (refs.listId !== current.listId || refs.segmentId !== current.segmentId))
    errors.push({ field: 'list_id', message: 'the audience cannot change once the campaign has launched' })
  if (current.launchedAt !== null && refs.channel !== current.channel)
    errors.push({ field: 'channel', message: 'the channel cannot change once the campaign has launched' })
  // A scheduled campaign starts at its scheduled_at: without one it would wait forever.
  if (current.status === 'scheduled' && patch.scheduled_at === null)
    errors.push({
      field: 'scheduled_at',
      message: 'a scheduled campaign needs a time; pause or cancel it, or launch it now, instead',
    })
  // Only what this PATCH changes is checked again: a deleted list must not block a rename.
  const changed = (v: string | null | undefined, was: string | null) =>
    v !== undefined && v !== was ? v : null
  await checkReferences(
    ctx.db,
    current.clientId,
    {
      channel: refs.channel,
      templateId:
        patch.channel !== undefined ? refs.templateId : changed(patch.template_id, current.templateId),
      listId: changed(patch.list_id, current.listId),
      segmentId: changed(patch.segment_id, current.segmentId),
      senderId: changed(patch.sender_id, current.senderId),
    },
    errors,
  )
  if (refs.listId && refs.segmentId && (patch.list_id || patch.segment_id))
    errors.push({ field: 'segment_id', message: 'give either list_id or segment_id, not both' })
  const sendAtLocal = pick(patch.send_at_local, current.sendAtLocal)
  checkLocalTime(sendAtLocal, patch.ab_test === undefined ? current.abTest : patch.ab_test, errors)
  checkLaunchedLocalTime(current, patch, errors)
  // A test under way keeps its variants and rules: its groups were drawn from them.
  if (current.launchedAt !== null && (patch.variants !== undefined || patch.ab_test !== undefined))
    errors.push({
      field: patch.variants !== undefined ? 'variants' : 'ab_test',
      message: 'an A/B test cannot change once the campaign has launched',
    })
  const ab = await checkAbTest(ctx.db, current.clientId, refs.channel, patch, current, errors)
  if (errors.length > 0) throw validationFailed(errors)
  const row = (
    await ctx.db
      .update(campaigns)
      .set({
        ...refs,
        name: patch.name ?? current.name,
        subject: pick(patch.subject, current.subject),
        bodyHtml: pick(patch.body_html, current.bodyHtml),
        bodyText: pick(patch.body_text, current.bodyText),
        scheduledAt: pick(scheduledAt, current.scheduledAt),
        sendAtLocal,
        variants: pick(ab.variants, current.variants),
        abTest: pick(ab.abTest, current.abTest),
        updatedAt: ctx.clock.now(),
      })
      .where(eq(campaigns.id, id))
      .returning()
  )[0]!
  return presentCampaign(row, await deferralOf(ctx.db, row))
}

export async function getCampaign(ctx: Ctx, id: string) {
  const row = await findCampaignRow(ctx, id)
  return presentCampaign(row, await deferralOf(ctx.db, row))
}

export async function listCampaigns(ctx: Ctx, page: ListCampaignsQuery) {
  const conditions: (SQL | undefined)[] = [listFilter(ctx.actor, campaigns.clientId, page.client_id)]
  if (page.status) conditions.push(eq(campaigns.status, page.status))
  if (page.search) {
    const pattern = `%${escapeLike(page.search)}%`
    conditions.push(
      DIALECT === 'postgres'
        ? likeIgnoringAsciiCase(sql`${campaigns.name}`, pattern)
        : sql`${campaigns.name} LIKE ${pattern} ESCAPE '\\'`,
    )
  }
  const result = await paginate(
    ctx.db,
    ctx.secretKey,
    campaigns,
    campaigns.id,
    and(...conditions),
    page,
    (r) => r,
  )
  const deferred = await deferralsOf(
    ctx.db,
    result.data.filter((r) => r.status === 'sending').map((r) => r.id),
  )
  return {
    data: result.data.map((r) => presentCampaign(r, deferred.get(r.id) ?? null)),
    pagination: result.pagination,
  }
}

/**
 * Removes a draft or paused campaign with the outbox rows that were never sent. Messages that
 * went out stay (without their campaign): the unsubscribe and tracking links in mail people
 * already have must keep working.
 */
export async function deleteCampaign(ctx: Ctx, id: string) {
  const row = await findCampaignRow(ctx, id)
  assertTransition(row.status, 'delete')
  const unsent = sql`campaign_id = ${id} AND status IN ('queued', 'sending', 'skipped', 'failed', 'cancelled')`
  await rawRun(
    ctx.db,
    sql`DELETE FROM message_contents WHERE message_seq IN (SELECT seq FROM messages WHERE ${unsent})`,
  )
  await rawRun(
    ctx.db,
    sql`DELETE FROM message_first_hits WHERE message_seq IN (SELECT seq FROM messages WHERE ${unsent})`,
  )
  await rawRun(ctx.db, sql`DELETE FROM messages WHERE ${unsent}`)
  await ctx.db.delete(campaignVariantCounts).where(eq(campaignVariantCounts.campaignId, id))
  await ctx.db.delete(campaigns).where(eq(campaigns.id, id))
  return { id, deleted: true }
}
