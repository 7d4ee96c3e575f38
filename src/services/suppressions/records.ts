import { and, eq, gte, lt } from 'drizzle-orm'
import type { Ctx } from '../../context'
import type { Db } from '../../db/client'
import { type PageRequest, paginate } from '../../db/paginate'
import { type SuppressionRow, suppressions } from '../../db/schema'
import { listFilter, ownerForCreate, visibleTo } from '../../db/tenant'
import { invalidField, notFound } from '../../errors'
import type { SuppressionSource } from '../../lib/enums'
import { newId } from '../../lib/ids'
import { iso } from '../../lib/time'
import type { SearchSuppressionsInput, SuppressionFields } from './inputs'

export function presentSuppression(row: SuppressionRow) {
  return {
    id: row.id,
    client_id: row.clientId,
    email: row.email,
    reason: row.reason,
    source: row.source,
    created_at: iso(row.createdAt),
  }
}

/** Adds a suppression; an address already suppressed keeps its first record (not an error). */
export async function suppress(
  db: Db,
  clientId: string,
  email: string,
  source: SuppressionSource,
  reason: string | null,
  now: number,
) {
  const normalized = email.trim().toLowerCase()
  await db
    .insert(suppressions)
    .values({ id: newId(), clientId, email: normalized, reason, source, createdAt: now })
    .onConflictDoNothing()
  return (
    await db
      .select()
      .from(suppressions)
      .where(and(eq(suppressions.clientId, clientId), eq(suppressions.email, normalized)))
      .limit(1)
  )[0]!
}

export async function addSuppression(ctx: Ctx, input: SuppressionFields, clientIdParam?: string) {
  const clientId = await ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  return presentSuppression(
    await suppress(ctx.db, clientId, input.email, 'api', input.reason ?? null, ctx.clock.now()),
  )
}

export async function listSuppressions(ctx: Ctx, page: PageRequest & { client_id?: string }) {
  const where = listFilter(ctx.actor, suppressions.clientId, page.client_id)
  return await paginate(ctx.db, ctx.secretKey, suppressions, suppressions.id, where, page, presentSuppression)
}

/** A platform-wide key must say which client (client_id) when the address is suppressed in several. */
export async function removeSuppression(ctx: Ctx, email: string, clientIdParam?: string) {
  const normalized = email.trim().toLowerCase()
  const where = and(
    eq(suppressions.email, normalized),
    visibleTo(ctx.actor, suppressions.clientId) ??
      listFilter(ctx.actor, suppressions.clientId, clientIdParam),
  )
  const rows = await ctx.db.select().from(suppressions).where(where)
  if (rows.length === 0) throw notFound('Suppression')
  if (rows.length > 1)
    throw invalidField('client_id', 'is required: this address is suppressed in several clients')
  await ctx.db.delete(suppressions).where(eq(suppressions.id, rows[0]!.id))
  return { ...presentSuppression(rows[0]!), deleted: true }
}

/**
 * Addresses starting with the query (stored lower-cased): a range of suppressions_client_email_idx
 * rather than a scan, newest first within it.
 */
export async function searchSuppressions(ctx: Ctx, input: SearchSuppressionsInput) {
  const { query, client_id, ...page } = input
  const prefix = query.trim().toLowerCase()
  const where = and(
    listFilter(ctx.actor, suppressions.clientId, client_id),
    gte(suppressions.email, prefix),
    lt(suppressions.email, `${prefix}\u{10ffff}`),
  )
  return await paginate(ctx.db, ctx.secretKey, suppressions, suppressions.id, where, page, presentSuppression)
}
