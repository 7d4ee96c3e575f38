import { and, eq, ne } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { paginate } from '../../db/paginate'
import { domains } from '../../db/schema'
import { findVisible, listFilter } from '../../db/tenant'
import { notFound } from '../../errors'
import type { ListDomainsQuery } from './inputs'
import { presentDomain } from './present'
import { presentWithProgress, warmupProgressOf } from './warmup'

export function findDomainRow(ctx: Ctx, id: string) {
  const row = findVisible(ctx.db, ctx.actor, domains, id)
  if (!row) throw notFound('Domain')
  return row
}

export const getDomain = (ctx: Ctx, id: string) => presentWithProgress(ctx, findDomainRow(ctx, id))

export function listDomains(ctx: Ctx, page: ListDomainsQuery) {
  const where = and(
    listFilter(ctx.actor, domains.clientId, page.client_id),
    page.verified === undefined
      ? undefined
      : page.verified
        ? eq(domains.status, 'verified')
        : ne(domains.status, 'verified'),
  )
  const result = paginate(ctx.db, ctx.secretKey, domains, domains.id, where, page, (row) => row)
  const progress = warmupProgressOf(ctx, result.data)
  return {
    data: result.data.map((row) => presentDomain(row, ctx.config, progress.get(row.id) ?? null)),
    pagination: result.pagination,
  }
}

/** Senders keep their rows; they simply stop being verified. */
export function deleteDomain(ctx: Ctx, id: string) {
  const row = findDomainRow(ctx, id)
  ctx.db.delete(domains).where(eq(domains.id, row.id)).run()
  return { id: row.id, client_id: row.clientId, deleted: true as const }
}
