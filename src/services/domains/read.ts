import { and, eq, ne } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { paginate } from '../../db/paginate'
import { domains } from '../../db/schema'
import { findVisible, listFilter } from '../../db/tenant'
import { notFound } from '../../errors'
import type { ListDomainsQuery } from './inputs'
import { presentDomain } from './present'
import { presentWithProgress, warmupProgressOf } from './warmup'

export async function findDomainRow(ctx: Ctx, id: string) {
  const row = await findVisible(ctx.db, ctx.actor, domains, id)
  if (!row) throw notFound('Domain')
  return row
}

export const getDomain = async (ctx: Ctx, id: string) =>
  await presentWithProgress(ctx, await findDomainRow(ctx, id))

export async function listDomains(ctx: Ctx, page: ListDomainsQuery) {
  const where = and(
    listFilter(ctx.actor, domains.clientId, page.client_id),
    page.verified === undefined
      ? undefined
      : page.verified
        ? eq(domains.status, 'verified')
        : ne(domains.status, 'verified'),
  )
  const result = await paginate(ctx.db, ctx.secretKey, domains, domains.id, where, page, (row) => row)
  const progress = await warmupProgressOf(ctx, result.data)
  return {
    data: result.data.map((row) => presentDomain(row, ctx.config, progress.get(row.id) ?? null)),
    pagination: result.pagination,
  }
}

/** Senders keep their rows; they simply stop being verified. */
export async function deleteDomain(ctx: Ctx, id: string) {
  const row = await findDomainRow(ctx, id)
  await ctx.db.delete(domains).where(eq(domains.id, row.id))
  return { id: row.id, client_id: row.clientId, deleted: true as const }
}
