import type { FlowEnrollmentRow, JourneyRow } from '../../db/schema'
import { iso, isoOrNull } from '../../lib/time'

export function presentJourney(row: JourneyRow) {
  return {
    id: row.id,
    client_id: row.clientId,
    name: row.name,
    status: row.status,
    nodes: row.nodes,
    allow_reentry: row.allowReentry,
    trigger: row.triggerKind,
    activated_at: isoOrNull(row.activatedAt),
    archived_at: isoOrNull(row.archivedAt),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  }
}

export function presentEnrollment(row: FlowEnrollmentRow, nextRunAt: number | null) {
  return {
    journey_id: row.flowId,
    client_id: row.clientId,
    contact_id: row.contactId,
    status: row.status,
    current_node: row.currentNode,
    next_run_at: row.status === 'active' ? isoOrNull(nextRunAt) : null,
    exit_reason: row.endReason,
    entered_at: iso(row.enteredAt),
    ended_at: isoOrNull(row.endedAt),
    history: row.history,
  }
}
