import { invalidState } from '../errors'
import { a } from '../lib/article'

// Every record with a state machine (campaigns, journeys, sequences) writes it as
// data, one rule per operation, and refuses a transition the same way: one 409 INVALID_STATE
// naming the current status and the allowed ones, whatever door it came through.

/** One operation's rule: the states it may start from, and the word a refusal uses ("paused"). */
export interface Transition<S extends string> {
  readonly from: readonly S[]
  readonly done: string
}

/**
 * A record's state machine from its rules: `allows` answers whether an operation may start from
 * a status (what a page offers), `assert` refuses it otherwise.
 */
export function stateMachine<S extends string, R extends Record<string, Transition<S>>>(
  noun: string,
  rules: R,
) {
  return {
    allows: (status: S, op: keyof R): boolean => rules[op]!.from.includes(status),
    assert: (status: S, op: keyof R): void =>
      assertAllowedFrom(noun, status, rules[op]!.from, rules[op]!.done),
  }
}

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
