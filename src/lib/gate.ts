// A counting gate: at most `limit` holders at once; the others wait their turn in order. The
// send queue's concurrency per lane and channel (HERALD_SEND_CONCURRENCY) is one, shared by the
// lane's consecutive batches, so the next batch's sends start as the last ones end.

export interface Gate {
  /** Takes a place: null when one was free, else a promise settled when one is handed over. */
  enter(): Promise<void> | null
  /** Gives the place back (to the first waiter, if any). */
  leave(): void
  /** Places taken. */
  held(): number
}

export function createGate(limit: number): Gate {
  let held = 0
  const waiting: (() => void)[] = []
  return {
    enter() {
      if (held < limit) {
        held++
        return null
      }
      return new Promise<void>((resolve) => waiting.push(resolve))
    },
    leave() {
      const next = waiting.shift()
      if (next) next()
      else held--
    },
    held: () => held,
  }
}
