import { invalidState } from '../errors'

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
  const article = /^[aeiou]/.test(status) ? 'An' : 'A'
  throw invalidState(
    `${article} ${status} ${noun} cannot be ${done}; allowed from: ${allowed.join(', ')}`,
    status,
    allowed,
  )
}
