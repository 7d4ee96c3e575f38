import type { AppContext } from '../../context'

// When the next A/B decision is due, kept in memory so the decision job, which fires every
// second, costs nothing while no test is near its end. Unknown (a fresh process) means "look":
// the first run reads the database and leaves the answer here.

const nextDecision = new WeakMap<AppContext, number | null>()

/** Whether the decision job has anything to do now. */
export function decisionDue(app: AppContext): boolean {
  const at = nextDecision.get(app)
  return at === undefined || (at !== null && at <= app.clock.now())
}

/** A test started, or a run found the next one: the job looks again at `at`. */
export function noteDecisionDue(app: AppContext, at: number | null): void {
  const current = nextDecision.get(app)
  if (at === null) return
  nextDecision.set(app, current === undefined || current === null ? at : Math.min(current, at))
}

/** After a run: the next pending decision's time (null: none pending). */
export function setNextDecision(app: AppContext, at: number | null): void {
  nextDecision.set(app, at)
}
