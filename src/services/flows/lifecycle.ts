import { sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { flowQueue } from '../../db/flow-queue'
import { rawRun } from '../../db/raw'
import type { FlowEndReason } from '../../lib/enums'

// What archiving a flow does to its runs, whichever door: every active enrollment ends (exited,
// with the door's reason), its runs are dropped and the messages still queued are cancelled.

export async function endEveryRun(
  db: Db,
  flowId: string,
  reason: FlowEndReason | null,
  cancelled: string,
  now: number,
) {
  await rawRun(
    db,
    sql`UPDATE flow_enrollments SET status = 'exited', end_reason = ${reason}, ended_at = ${now}, updated_at = ${now}
        WHERE flow_id = ${flowId} AND status = 'active'`,
  )
  await rawRun(db, sql`DELETE FROM flow_runs WHERE flow_id = ${flowId}`)
  await flowQueue(db).cancelQueued(flowId, cancelled)
}
