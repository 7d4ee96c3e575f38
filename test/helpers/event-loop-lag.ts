// How long the event loop stalled while something ran: the largest gap between the ticks of a
// 5 ms interval, and the time since its last tick when the work ends (work that never yields
// would not let the interval run at all).

const TICK_MS = 5

/** The worst stall while `during` runs, and what it returned. */
export async function lagDuring<T>(during: () => Promise<T>): Promise<{ lag: number; result: T }> {
  let last = performance.now()
  let lag = 0
  const probe = setInterval(() => {
    const now = performance.now()
    lag = Math.max(lag, now - last - TICK_MS)
    last = now
  }, TICK_MS)
  try {
    const result = await during()
    return { lag: Math.max(lag, performance.now() - last - TICK_MS), result }
  } finally {
    clearInterval(probe)
  }
}

/**
 * The least stall of up to `tries` runs of `run`, stopping at the first under `limit`. The
 * machine is shared, so a scheduling hiccup may hold one run past the limit; a stall the work
 * itself causes happens on every run.
 */
export async function leastLag(run: () => Promise<unknown>, limit: number, tries = 3): Promise<number> {
  let least = Number.POSITIVE_INFINITY
  for (let i = 0; i < tries && least >= limit; i++) least = Math.min(least, (await lagDuring(run)).lag)
  return least
}
