import type { AppContext } from '../../context'
import {
  contactCreatedJourneys,
  listJoinWatched,
  onComplaint,
  onContactsCreated,
  onJourneyEvent,
  onListJoined,
} from './triggers'

// Journeys react to core's hooks (src/hooks.ts) inside the transaction that fired them: a new
// contact or a list join may start journeys, an event wakes waiting contacts or starts event
// journeys, a complaint takes the contact out. Entering wakes the flow worker, which runs
// after the transaction (a kick runs in a later turn).

export function subscribeJourneys(app: AppContext): void {
  const { db, hooks } = app
  hooks.contactCreated.bind(
    async (e) => {
      if ((await onContactsCreated(db, await contactCreatedJourneys(db, e.clientId), e.contactIds, e.at)) > 0)
        app.workers.wake('flows')
    },
    { wants: async (clientId) => (await contactCreatedJourneys(db, clientId)).length > 0 },
  )
  hooks.listJoined.bind(
    async (e) => {
      await onListJoined(db, e.listId, e.contactIds, e.at)
      app.workers.wake('flows')
    },
    { wants: async (listId) => await listJoinWatched(db, listId) },
  )
  hooks.eventRecorded.bind(async (e) => await onJourneyEvent(db, e))
  hooks.complaint.bind(async (e) => await onComplaint(db, e.contactId, e.at))
}
