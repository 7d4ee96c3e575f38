import { rmSync } from 'node:fs'
import type { AppContext } from '../../context'
import { claimNextImport, completeImport, failImport, saveImportProgress } from '../../db/imports'
import { createLeasedWorker, type LeasedWorker } from '../../queue/leased-worker'
import { processImport } from './process'

// Imports run in the background, one at a time, in the server process. The job row is the
// truth: a restart finds queued or interrupted jobs and runs them again from the start, which
// is safe because a re-run of the same file changes nothing already written.

/** Imports are queued by a verb that kicks the worker; the poll only catches what a kick missed. */
const IDLE_POLL_MS = 5_000

/** The import worker: one job at a time, each from the start of its file. */
export function createImportWorker(ctx: AppContext): LeasedWorker {
  /** Runs the oldest queued (or interrupted) job to its end. */
  async function pass() {
    const job = claimNextImport(ctx.db, ctx.clock.now())
    if (!job) return { worked: false }
    try {
      const p = await processImport(
        ctx.db,
        job,
        () => ctx.clock.now(),
        (progress, enrolled) => {
          saveImportProgress(ctx.db, job.id, progress, ctx.clock.now())
          if (enrolled > 0) ctx.workers.wake('flows')
        },
      )
      completeImport(ctx.db, job.id, p, ctx.clock.now())
      ctx.log.info('import completed', {
        import_id: job.id,
        processed: p.processed,
        inserted: p.inserted,
        updated: p.updated,
        skipped: p.skipped,
      })
    } catch (err) {
      const message = (err as Error).message
      failImport(ctx.db, job.id, message, ctx.clock.now())
      ctx.log.warn('import failed', { import_id: job.id, error: message })
    }
    rmSync(job.file, { force: true })
    return { worked: true }
  }

  // A job is claimed by setting it running; one interrupted by a stop is still running at the
  // next start, and is run again from the start (a re-run of the same file changes nothing).
  return createLeasedWorker(ctx, { name: 'imports', pass, idleMs: IDLE_POLL_MS })
}
