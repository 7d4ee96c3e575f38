import type { Awaitable } from './awaitable'

// Which flow (journey, sequence) an executor steps next, shared by both executors. The one whose
// oldest due run is the oldest goes first, so one flow's backlog never starves another's. A flow
// whose step failed unexpectedly (a bug, or a graph stored before a check existed) is held back
// with a growing delay: its runs stay due and untouched (the failed transaction rolled back),
// while every other flow, of every tenant, goes on. Without the hold the failing flow would be
// picked first on every pass and stop the executor for everyone.

const FIRST_HOLD_MS = 1_000
const MAX_HOLD_MS = 5 * 60_000

export interface DuePick {
  /** The flow to step now, or null when none is due (or every due one is held back). */
  pick: string | null
  /** When the next flow is due (or its hold ends); null when there is none. */
  nextAt: number | null
}

export interface FailureHolds {
  /** Holds `id` back after a failure; returns when it may be tried again. */
  failed(id: string, now: number): number
  /** Its step went through: no longer held. */
  succeeded(id: string): void
  /** Until when `id` is held back, or null. */
  until(id: string): number | null
  /**
   * Runs one step of `id` (a transaction that rolls back when it throws): a throw holds `id`
   * back, is reported to `onFailure` with the retry time, and counts as nothing stepped.
   */
  attempt(
    id: string,
    now: number,
    step: () => Awaitable<number>,
    onFailure: (retryAt: number, err: unknown) => void,
  ): Promise<number>
}

/** Per-flow holds in memory: a restart tries each flow again once (and holds it again if it fails). */
export function createFailureHolds(firstMs = FIRST_HOLD_MS, maxMs = MAX_HOLD_MS): FailureHolds {
  const held = new Map<string, { until: number; failures: number }>()
  const holds: FailureHolds = {
    async attempt(id, now, step, onFailure) {
      try {
        const stepped = await step()
        holds.succeeded(id)
        return stepped
      } catch (err) {
        onFailure(holds.failed(id, now), err)
        return 0
      }
    },
    failed(id, now) {
      const failures = (held.get(id)?.failures ?? 0) + 1
      const until = now + Math.min(maxMs, firstMs * 2 ** (failures - 1))
      held.set(id, { until, failures })
      return until
    },
    succeeded: (id) => void held.delete(id),
    until: (id) => held.get(id)?.until ?? null,
  }
  return holds
}

/** Picks among `ids` by their oldest due run (`nextDue`), a held flow counting as due at its hold's end. */
export async function pickDue(
  ids: Iterable<string>,
  nextDue: (id: string) => Awaitable<number | null>,
  now: number,
  holds: FailureHolds,
): Promise<DuePick> {
  let pick: string | null = null
  let pickAt = 0
  let nextAt: number | null = null
  for (const id of ids) {
    let at = await nextDue(id)
    if (at === null) continue
    const heldUntil = holds.until(id)
    if (heldUntil !== null && heldUntil > at) at = heldUntil
    if (at > now) nextAt = nextAt === null ? at : Math.min(nextAt, at)
    else if (pick === null || at < pickAt) {
      pick = id
      pickAt = at
    }
  }
  return { pick, nextAt }
}
