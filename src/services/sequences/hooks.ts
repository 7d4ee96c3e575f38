import type { AppContext } from '../../context'
import { onSequenceComplaint, onSequenceEvent } from './stops'

// Sequences react to core's hooks (src/hooks.ts) inside the transaction that fired them: a
// bounce or an unsubscribe (events), a complaint, or a reply stops the contact's runs.

export function subscribeSequences(app: AppContext): void {
  const { db, hooks } = app
  // A reply has a hook of its own; its reply.received event is not a second stop.
  hooks.eventRecorded.bind(async (e) => {
    if (e.type !== 'reply.received') await onSequenceEvent(db, e)
  })
  // stops.ts names its reasons by event type: a reply stops as 'reply.received' does (only
  // the runs of sequences that stop on a reply).
  hooks.reply.bind(
    async (e) =>
      await onSequenceEvent(db, { type: 'reply.received', contactId: e.contactId, occurredAt: e.at }),
  )
  hooks.complaint.bind(async (e) => await onSequenceComplaint(db, e.contactId, e.at))
}
