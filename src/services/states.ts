import { invalidState } from '../errors'
import { a } from '../lib/article'

// Every record with a state machine (campaigns, journeys, sequences; DESIGN.md §7) refuses a
// transition the same way: one 409 INVALID_STATE naming the current status and the allowed ones,
// whatever door it came through.

/** Throws unless `status` is one of `allowed`; `noun` and `done` word the message ("paused"). */
export function assertAllowedFrom<S extends string>(
  noun: string,
  status: S,
  allowed: readonly S[],
  done: string,
): void {
  if (allowed.includes(status)) return
  const said = a(status)
  throw invalidState(
    `${said[0]!.toUpperCase()}${said.slice(1)} ${noun} cannot be ${done}; allowed from: ${allowed.join(', ')}`,
    status,
    allowed,
  )
}
