import type { FlowEnrollmentRow, SequenceRow } from '../../db/schema'
import { iso, isoOrNull } from '../../lib/time'
import { stepOfNode } from '../flows/linear'
import type { NodeMessageStats } from '../flows/message-stats'

/** A step's message figures, as GET /sequences/{id} gives them. */
export type StepStats = { step: number } & Omit<NodeMessageStats, 'queued' | 'failed'>

export function presentSequence(row: SequenceRow, stats: StepStats[]) {
  return {
    id: row.id,
    client_id: row.clientId,
    name: row.name,
    status: row.status,
    step_count: row.steps.length,
    steps: row.steps,
    settings: {
      stop_on_reply: row.stopOnReply,
      sending_window: row.sendingWindow ?? null,
      daily_limit: row.dailyLimit,
    },
    sender_id: row.senderId,
    stats,
    activated_at: isoOrNull(row.activatedAt),
    archived_at: isoOrNull(row.archivedAt),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  }
}

/**
 * A run's history as the sequence API has always shown it: one entry per step that ran,
 * `{step, message_id, channel, at}`, or `{step, message_id: null, skipped, at}` for a step that
 * could not send. The flow's other entries (its waits) are not steps and are left out.
 */
function stepHistory(history: Record<string, unknown>[]) {
  const out: Record<string, unknown>[] = []
  for (const e of history) {
    const step = typeof e.step === 'number' ? e.step : stepOfNode(e.node as string | undefined)
    if (step === null) continue
    out.push(
      typeof e.skipped === 'string'
        ? { step, message_id: null, skipped: e.skipped, at: e.at }
        : { step, message_id: e.message_id ?? null, channel: e.channel, at: e.at },
    )
  }
  return out
}

export function presentSequenceEnrollment(row: FlowEnrollmentRow, nextRunAt: number | null) {
  const history = stepHistory(row.history)
  // The last step run is the last that queued a message (a skipped step does not count).
  const ran = history.filter((h) => h.message_id !== null).at(-1)
  return {
    sequence_id: row.flowId,
    client_id: row.clientId,
    contact_id: row.contactId,
    status: row.status,
    current_step: (ran?.step as number | undefined) ?? null,
    next_run_at: row.status === 'active' ? isoOrNull(nextRunAt) : null,
    stop_reason: row.endReason,
    entered_at: iso(row.enteredAt),
    ended_at: isoOrNull(row.endedAt),
    history,
  }
}
