import type { Db } from '../../db/client'
import type { SequenceRow } from '../../db/schema'
import { stepNodeId } from '../flows/linear'
import { messageStatsByNode } from '../flows/message-stats'
import type { StepStats } from './present'

/** Per step: messages sent, delivered, opened, clicked, replied, bounced (each message once). */
export async function stepStats(db: Db, row: SequenceRow): Promise<StepStats[]> {
  const of = await messageStatsByNode(db, row.id)
  return row.steps.map((_, step) => {
    const { sent, delivered, opened, clicked, replied, bounced } = of(stepNodeId(step))
    return { step, sent, delivered, opened, clicked, replied, bounced }
  })
}
