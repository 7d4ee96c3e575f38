import { and, eq, inArray, isNotNull, isNull, or } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { paginate } from '../../db/paginate'
import { type WebhookRow, webhookAttempts, webhookDeliveries, webhooks } from '../../db/schema'
import { findVisible, listFilter, ownerForCreate } from '../../db/tenant'
import { type FieldError, notFound, validationFailed } from '../../errors'
import { encryptSecret } from '../../lib/crypto'
import { iso, isoOrNull } from '../../lib/time'
import { notOneOf } from '../../lib/validate'
import { generateSecret } from '../../webhooks/signing'
import { checkTarget, hostResolver } from '../../webhooks/ssrf'
import { EVENT_TYPES } from '../events/record'
import type { ListWebhooksQuery, WebhookInput, WebhookPatch } from './inputs'

export function presentWebhook(row: WebhookRow) {
  return {
    id: row.id,
    client_id: row.clientId,
    url: row.url,
    events: row.events,
    active: row.active,
    disabled_reason: row.disabledReason,
    failing_since: isoOrNull(row.failingSince),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  }
}

/**
 * webhooks.create/update, the I/O: why the URL may not be a target (its shape, its host name,
 * the addresses that name resolves to now, through HERALD_DNS_SERVERS when set), or null.
 * A name that does not resolve (yet, or from this network) is accepted: it can reach nothing
 * private through us, because every delivery checks again and connects only to the addresses
 * that check approved. Refusing it would make an instance without DNS unable to register any
 * webhook, and a name registered before its DNS exists is common.
 */
export async function webhookUrlProblem(ctx: Ctx, url: string | undefined): Promise<string | null> {
  if (url === undefined) return null
  const r = await checkTarget(url, ctx.config.webhookAllowPrivate, hostResolver(ctx.config.dnsServers))
  return 'problem' in r && !r.unresolved ? r.problem : null
}

function check(input: { url?: string; events?: string[] }, urlProblem: string | null) {
  const errors: FieldError[] = []
  if (input.url !== undefined && urlProblem) errors.push({ field: 'url', message: urlProblem })
  if (input.events !== undefined) {
    if (input.events.length === 0) errors.push({ field: 'events', message: 'must name at least one event' })
    const seen = new Set<string>()
    input.events.forEach((e, i) => {
      if (!(EVENT_TYPES as readonly string[]).includes(e))
        errors.push({ field: `events[${i}]`, message: notOneOf(e, EVENT_TYPES) })
      else if (seen.has(e)) errors.push({ field: `events[${i}]`, message: `${e} is listed twice` })
      seen.add(e)
    })
  }
  if (errors.length) throw validationFailed(errors)
}

export async function findWebhookRow(ctx: Ctx, id: string): Promise<WebhookRow> {
  const row = await findVisible(ctx.db, ctx.actor, webhooks, id)
  if (!row) throw notFound('Webhook')
  return row
}

/** Creates an active webhook; the answer carries the signing secret, this once. */
export async function createWebhook(
  ctx: Ctx,
  input: WebhookInput,
  clientIdParam: string | undefined,
  urlProblem: string | null,
) {
  const clientId = await ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  check(input, urlProblem)
  const secret = generateSecret()
  const now = ctx.clock.now()
  const row = (
    await ctx.db
      .insert(webhooks)
      .values({
        id: Bun.randomUUIDv7(),
        clientId,
        url: input.url,
        events: input.events,
        active: true,
        secret: encryptSecret(ctx.secretKey, secret),
        createdAt: now,
        updatedAt: now,
      })
      .returning()
  )[0]!
  return { ...presentWebhook(row), secret }
}

export const getWebhook = async (ctx: Ctx, id: string) => presentWebhook(await findWebhookRow(ctx, id))

export async function listWebhooks(ctx: Ctx, page: ListWebhooksQuery) {
  const where = and(
    listFilter(ctx.actor, webhooks.clientId, page.client_id),
    // What an operator must act on: deliveries failing, or the endpoint disabled (by failures,
    // a 410, or by hand) so nothing reaches it.
    page.failing === undefined
      ? undefined
      : page.failing
        ? or(isNotNull(webhooks.failingSince), isNotNull(webhooks.disabledReason))
        : and(isNull(webhooks.failingSince), isNull(webhooks.disabledReason)),
  )
  return await paginate(ctx.db, ctx.secretKey, webhooks, webhooks.id, where, page, presentWebhook)
}

/** Partial update. Re-enabling (`active: true`) clears the reason and the failing clock. */
export async function updateWebhook(ctx: Ctx, id: string, patch: WebhookPatch, urlProblem: string | null) {
  const current = await findWebhookRow(ctx, id)
  check(patch, urlProblem)
  const set: Partial<WebhookRow> = { updatedAt: ctx.clock.now() }
  if (patch.url !== undefined) set.url = patch.url
  if (patch.events !== undefined) set.events = patch.events
  if (patch.active === true && !current.active)
    Object.assign(set, { active: true, disabledReason: null, failingSince: null })
  if (patch.active === false && current.active)
    Object.assign(set, { active: false, disabledReason: 'manual' })
  const row = (await ctx.db.update(webhooks).set(set).where(eq(webhooks.id, id)).returning())[0]!
  if (set.active) ctx.workers.wake('webhooks')
  return presentWebhook(row)
}

/** Removes the webhook with its outbox and attempt log. */
export async function deleteWebhook(ctx: Ctx, id: string) {
  await findWebhookRow(ctx, id)
  await ctx.db
    .delete(webhookAttempts)
    .where(
      inArray(
        webhookAttempts.deliveryId,
        ctx.db
          .select({ id: webhookDeliveries.id })
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.webhookId, id)),
      ),
    )
  await ctx.db.delete(webhookDeliveries).where(eq(webhookDeliveries.webhookId, id))
  await ctx.db.delete(webhooks).where(eq(webhooks.id, id))
  return { id, deleted: true }
}
