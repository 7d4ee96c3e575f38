import { and, eq, ne } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { paginate } from '../../db/paginate'
import { domains } from '../../db/schema'
import { findVisible, listFilter } from '../../db/tenant'
import { notFound } from '../../errors'
import type { ListDomainsQuery } from './inputs'
import { presentDomain } from './present'

export function findDomainRow(ctx: Ctx, id: string) {
  const row = findVisible(ctx.db, ctx.actor, domains, id)
  if (!row) throw notFound('Domain')
  return row
}

export const getDomain = (ctx: Ctx, id: string) => presentDomain(findDomainRow(ctx, id), ctx.config)

export function listDomains(ctx: Ctx, page: ListDomainsQuery) {
  const where = and(
    listFilter(ctx.actor, domains.clientId, page.client_id),
    page.verified === undefined
      ? undefined
      : page.verified
        ? eq(domains.status, 'verified')
        : ne(domains.status, 'verified'),
  )
  return paginate(ctx.db, ctx.secretKey, domains, domains.id, where, page, (row) =>
    presentDomain(row, ctx.config),
  )
}

/** Senders keep their rows; they simply stop being verified. */
export function deleteDomain(ctx: Ctx, id: string) {
  const row = findDomainRow(ctx, id)
  ctx.db.delete(domains).where(eq(domains.id, row.id)).run()
  return { id: row.id, client_id: row.clientId, deleted: true as const }
}
