import { sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import type { SequenceRow } from '../../db/schema'
import { stepOfNode } from '../flows/linear'
import type { StepStats } from './present'

/** Per step: messages sent, delivered, opened, clicked, replied, bounced (each message once). */
export function stepStats(db: Db, row: SequenceRow): StepStats[] {
  const counted = new Map(
    db
      .all<Omit<StepStats, 'step'> & { node: string }>(
        sql`SELECT source_step AS node, count(sent_at) AS sent, count(delivered_at) AS delivered,
              count(opened_at) AS opened, count(clicked_at) AS clicked, count(replied_at) AS replied,
              count(bounced_at) AS bounced
            FROM messages WHERE source_id = ${row.id} GROUP BY source_step`,
      )
      .map((r) => [stepOfNode(r.node), r]),
  )
  return row.steps.map((_, step) => {
    const c = counted.get(step)
    return {
      step,
      sent: c?.sent ?? 0,
      delivered: c?.delivered ?? 0,
      opened: c?.opened ?? 0,
      clicked: c?.clicked ?? 0,
      replied: c?.replied ?? 0,
      bounced: c?.bounced ?? 0,
    }
  })
}
