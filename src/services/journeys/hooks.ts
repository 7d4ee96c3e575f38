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
    (e) => {
      if (onContactsCreated(db, contactCreatedJourneys(db, e.clientId), e.contactIds, e.at) > 0)
        app.workers.wake('flows')
    },
    { wants: (clientId) => contactCreatedJourneys(db, clientId).length > 0 },
  )
  hooks.listJoined.bind(
    (e) => {
      onListJoined(db, e.listId, e.contactIds, e.at)
      app.workers.wake('flows')
    },
    { wants: (listId) => listJoinWatched(db, listId) },
  )
  hooks.eventRecorded.bind((e) => onJourneyEvent(db, e))
  hooks.complaint.bind((e) => onComplaint(db, e.contactId, e.at))
}
