import { and, count, desc, eq, lt, type SQL } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { cursorSeq, pageFrom } from '../../db/paginate'
import { type FlowEnrollmentRow, flowEnrollments, flowRuns } from '../../db/schema'
import { idFilter } from '../id-filter'

// A flow's enrollments, newest first, with each active one's next due time: the one listing
// behind GET /journeys/{id}/enrollments and GET /sequences/{id}/enrollments.

export interface EnrollmentsQuery {
  limit?: number
  cursor?: string
  status?: string
  contact_id?: string
}

export async function listFlowEnrollments<T>(
  ctx: Ctx,
  flowId: string,
  /** Names the collection in cursors (a cursor of one listing is refused by another). */
  collection: string,
  page: EnrollmentsQuery,
  present: (row: FlowEnrollmentRow, nextRunAt: number | null) => T,
) {
  const limit = page.limit ?? 50
  const after = cursorSeq(ctx.secretKey, page.cursor, collection, page)
  const where: (SQL | undefined)[] = [eq(flowEnrollments.flowId, flowId)]
  if (page.status) where.push(eq(flowEnrollments.status, page.status as FlowEnrollmentRow['status']))
  const contactId = idFilter('contact_id', 'contact', page.contact_id)
  if (contactId) where.push(eq(flowEnrollments.contactId, contactId))
  const filter = and(...where)
  const rows = await ctx.db
    .select({ e: flowEnrollments, next: flowRuns.nextRunAt })
    .from(flowEnrollments)
    .leftJoin(flowRuns, eq(flowRuns.enrollmentSeq, flowEnrollments.seq))
    .where(and(filter, after === null ? undefined : lt(flowEnrollments.seq, after)))
    .orderBy(desc(flowEnrollments.seq))
    .limit(limit + 1)
  const total = (await ctx.db.select({ n: count() }).from(flowEnrollments).where(filter).limit(1))[0]?.n ?? 0
  return pageFrom(ctx.secretKey, rows, limit, {
    collection,
    position: (r) => String(r.e.seq),
    present: (r) => present(r.e, r.next),
    total,
    query: page,
  })
}
