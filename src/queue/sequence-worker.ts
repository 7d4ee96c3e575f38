import type { AppContext } from '../context'
import { createSequenceExecutor, type SequenceStepReport } from '../services/sequences/executor'
import { createLeasedWorker, type LeasedWorker } from './leased-worker'

// The sequence worker: the shared leased-worker loop around the executor. A pass steps batches
// of due runs, each batch in one transaction; the loop sleeps until the next run is due (at
// most idleMs, so runs made due by an enrollment without a wake are seen soon).

export interface SequenceWorkerOptions {
  batch?: number
  budgetMs?: number
  idleMs?: number
  onPass?(report: SequenceStepReport): void
}

export function createSequenceWorker(app: AppContext, options: SequenceWorkerOptions = {}): LeasedWorker {
  const executor = createSequenceExecutor(app)
  return createLeasedWorker(app, {
    name: 'sequences',
    pass() {
      const report = executor.pass(options.batch, options.budgetMs)
      options.onPass?.(report)
      // A chunk of a large enrollment is work too: the next one follows at once.
      return { worked: report.stepped > 0 || report.chunks > 0, nextAt: report.nextAt }
    },
    idleMs: options.idleMs ?? 250,
  })
}
