import type { SequenceEnrollmentRow, SequenceRow } from '../../db/schema'
import { iso, isoOrNull } from '../../lib/time'

export interface StepStats {
  step: number
  sent: number
  delivered: number
  opened: number
  clicked: number
  replied: number
  bounced: number
}

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

export function presentSequenceEnrollment(row: SequenceEnrollmentRow) {
  return {
    sequence_id: row.sequenceId,
    client_id: row.clientId,
    contact_id: row.contactId,
    status: row.status,
    current_step: row.currentStep,
    next_run_at: row.status === 'active' ? isoOrNull(row.nextRunAt) : null,
    stop_reason: row.stopReason,
    entered_at: iso(row.enteredAt),
    ended_at: isoOrNull(row.endedAt),
    history: row.history,
  }
}
