import type { AppContext } from '../../context'
import { createLeasedWorker, type LeasedWorker } from '../../queue/leased-worker'
import { createFlowExecutor, type StepReport } from './executor'

// The flow worker: the shared leased-worker loop around the executor. A pass steps batches of
// due runs, each batch in one transaction, and enters chunks of large enrollments between them;
// the loop sleeps until the next run is due (at most idleMs, so runs made due by a hook without
// a wake are seen soon).

export interface FlowWorkerOptions {
  /** Runs stepped per flow per transaction. */
  batch?: number
  /** Time a pass may take before the loop yields (more batches while steps are due). */
  budgetMs?: number
  idleMs?: number
  /** Sees every pass's report (the benchmarks measure step lateness with it). */
  onPass?(report: StepReport): void
}

/**
 * A pass's budget on PostgreSQL. There a step waits on round trips, not on the event loop (about
 * 5 ms a step against 0.7 ms on SQLite), and a pass's fixed statements cost ~13 ms: within the
 * 10 ms slice a pass took two steps. The longer pass holds the process's one transaction longer
 * (other writes wait up to this), which the event loop does not feel.
 */
const PG_PASS_BUDGET_MS = 50

export function createFlowWorker(app: AppContext, options: FlowWorkerOptions = {}): LeasedWorker {
  const executor = createFlowExecutor(app)
  const budgetMs = options.budgetMs ?? (app.store.dialect === 'postgres' ? PG_PASS_BUDGET_MS : undefined)
  return createLeasedWorker(app, {
    name: 'flows',
    async pass() {
      const report = await executor.pass(options.batch, budgetMs)
      options.onPass?.(report)
      // A chunk of a large enrollment is work too: the next one follows at once.
      return { worked: report.stepped > 0 || report.chunks > 0, nextAt: report.nextAt }
    },
    idleMs: options.idleMs ?? 250,
  })
}
