import type { AppContext } from '../context'
import { createJourneyExecutor, type StepReport } from '../services/journeys/executor'
import { createLeasedWorker, type LeasedWorker } from './leased-worker'

// The journey worker: the shared leased-worker loop around the executor. A pass steps a batch
// of due runs per active journey, each batch in one transaction; the loop sleeps until the
// next run is due (at most idleMs, so runs made due by a hook without a wake are seen soon).

export interface JourneyWorkerOptions {
  /** Runs stepped per journey per transaction. */
  batch?: number
  /** Time a pass may take before the loop yields (more batches while steps are due). */
  budgetMs?: number
  idleMs?: number
  /** Sees every pass's report (the benchmark measures step lateness with it). */
  onPass?(report: StepReport): void
}

export function createJourneyWorker(app: AppContext, options: JourneyWorkerOptions = {}): LeasedWorker {
  const executor = createJourneyExecutor(app)
  return createLeasedWorker(app, {
    name: 'journeys',
    pass() {
      const report = executor.pass(options.batch, options.budgetMs)
      options.onPass?.(report)
      return { worked: report.stepped > 0 || report.chunks > 0, nextAt: report.nextAt }
    },
    idleMs: options.idleMs ?? 250,
  })
}
