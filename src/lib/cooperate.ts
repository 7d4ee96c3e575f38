// Time slices for background work that shares the one event loop with the API (the send
// queue's batches, the journey executor). With an instant provider (capture) a batch's sends
// resolve at once, so without a yield a whole batch — render, compose, outcome writes — runs as
// one chain of microtasks and every request waits for it. Such work checks `spent()` between
// units and, once its slice is used, awaits `next()`: the rest runs in a later macrotask, after
// the I/O and timers that came in meanwhile (setImmediate, not a microtask: those never let I/O
// in). Each worker has its own slice, so a turn of the loop holds at most one slice per worker.

/** Synchronous work a worker does per turn of the event loop before it yields. */
export const SLICE_MS = 10

export interface Slice {
  /** This slice has used its budget: yield before the next unit of work. */
  spent(): boolean
  /** Resolves in a later macrotask, when a new slice begins (callers in one turn share it). */
  next(): Promise<void>
}

export function createSlice(budgetMs: number = SLICE_MS): Slice {
  let start = performance.now()
  let pending: Promise<void> | null = null
  return {
    spent: () => performance.now() - start >= budgetMs,
    next() {
      pending ??= new Promise<void>((resolve) =>
        setImmediate(() => {
          pending = null
          start = performance.now()
          resolve()
        }),
      )
      return pending
    },
  }
}
