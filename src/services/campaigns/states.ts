import type { OutboxRules } from '../../db/outbox'
import type { CampaignStatus } from '../../lib/enums'
import { assertAllowedFrom } from '../states'

// The campaign state machine of DESIGN.md §7, as data: each operation names the states it may
// start from. Every forbidden transition is one 409 INVALID_STATE with the current status and
// the allowed ones, whatever door it came through.

export const ALLOWED_FROM = {
  update: ['draft', 'scheduled', 'paused'],
  launch: ['draft', 'scheduled', 'paused'],
  pause: ['scheduled', 'sending'],
  cancel: ['scheduled', 'sending', 'paused'],
  delete: ['draft', 'paused'],
} as const satisfies Record<string, readonly CampaignStatus[]>

/** The campaign sends: its messages are claimed. */
export const SENDING: CampaignStatus = 'sending'
/** Held by the operator: messages wait (the audience copy goes on). */
export const PAUSED: CampaignStatus = 'paused'
/** Stopped before the end: whatever is still queued, or comes back to the queue, is cancelled. */
export const STOPPED: readonly CampaignStatus[] = ['cancelled', 'failed']

/** What the outbox's statements need to know of campaign states (src/db/outbox.ts). */
export const OUTBOX_RULES: OutboxRules = { stoppedCampaign: STOPPED }

export type CampaignOperation = keyof typeof ALLOWED_FROM

const VERBS: Record<CampaignOperation, string> = {
  update: 'updated',
  launch: 'launched',
  pause: 'paused',
  cancel: 'cancelled',
  delete: 'deleted',
}

export function assertTransition(status: CampaignStatus, operation: CampaignOperation): void {
  assertAllowedFrom('campaign', status, ALLOWED_FROM[operation], VERBS[operation])
}
