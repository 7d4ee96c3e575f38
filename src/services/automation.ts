import type { AppContext } from '../context'
import { subscribeJourneys } from './journeys/hooks'
import { subscribeSequences } from './sequences/hooks'

/**
 * Binds automation to the app's hooks: called once by createAppContext, so every app (server,
 * CLI, tests) reacts alike. Journeys bind first: an event starts or wakes journeys, then stops
 * sequences, in the order the hand-wired calls ran.
 */
export function subscribeAutomation(app: AppContext): void {
  subscribeJourneys(app)
  subscribeSequences(app)
}
