import type { Actor } from '../actors/actor'

// Its own file so that the two judges of a bearer token (./authenticate.ts, ./external.ts),
// which call each other's functions one way, share the answer's type without a cycle.

/** What judging a bearer token concluded: an actor, or why not. */
export type TokenOutcome =
  | { ok: true; actor: Actor }
  | {
      ok: false
      reason: 'unknown' | 'revoked' | 'expired' | 'client_suspended'
      /** What the 401 says, when more than the reason's stock message helps (external tokens). */
      message?: string
    }
