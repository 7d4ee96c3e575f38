import type { OutboxRules } from '../../db/outbox'
import type { CampaignStatus } from '../../lib/enums'
import { stateMachine, type Transition } from '../states'

// The campaign state machine, as data: each operation names the states it may
// start from. Every forbidden transition is one 409 INVALID_STATE with the current status and
// the allowed ones, whatever door it came through.

export const TRANSITIONS = {
  update: { from: ['draft', 'scheduled', 'paused'], done: 'updated' },
  launch: { from: ['draft', 'scheduled', 'paused'], done: 'launched' },
  pause: { from: ['scheduled', 'sending'], done: 'paused' },
  cancel: { from: ['scheduled', 'sending', 'paused'], done: 'cancelled' },
  delete: { from: ['draft', 'paused'], done: 'deleted' },
} as const satisfies Record<string, Transition<CampaignStatus>>
const STATES = stateMachine<CampaignStatus, typeof TRANSITIONS>('campaign', TRANSITIONS)

/** The campaign sends: its messages are claimed. */
export const SENDING: CampaignStatus = 'sending'
/** Waiting for its time (a local-time campaign: for its first recipient's, its audience queued). */
export const SCHEDULED: CampaignStatus = 'scheduled'
/** Held by the operator: messages wait (the audience copy goes on). */
export const PAUSED: CampaignStatus = 'paused'
/** Stopped before the end: whatever is still queued, or comes back to the queue, is cancelled. */
export const STOPPED: readonly CampaignStatus[] = ['cancelled', 'failed']

/** What the outbox's statements need to know of campaign states (src/db/outbox.ts). */
export const OUTBOX_RULES: OutboxRules = { stoppedCampaign: STOPPED }

export type CampaignOperation = keyof typeof TRANSITIONS

export const assertTransition = (status: CampaignStatus, operation: CampaignOperation) =>
  STATES.assert(status, operation)
