import { rmSync } from 'node:fs'
import type { AppContext } from '../../context'
import { claimNextImport, completeImport, failImport } from '../../db/imports'
import { createLeasedWorker, type LeasedWorker } from '../../queue/leased-worker'
import { processImport } from './process'

// Imports run in the background, one at a time, in the server process. The job row is the
// truth: each batch commits with the job's counts, and a restart finds queued or interrupted
// jobs and runs them on from the row their last batch reached.

/** Imports are queued by a verb that kicks the worker; the poll only catches what a kick missed. */
const IDLE_POLL_MS = 5_000

/** The import worker: one job at a time. */
export function createImportWorker(ctx: AppContext): LeasedWorker {
  /** Runs the oldest queued (or interrupted) job to its end. */
  async function pass() {
    const job = await claimNextImport(ctx.db, ctx.clock.now())
    if (!job) return { worked: false }
    try {
      const resumeFrom = {
        processed: job.processed,
        inserted: job.inserted,
        updated: job.updated,
        skipped: job.skipped,
        errors: job.errors,
      }
      const p = await processImport(ctx, { ...job, resumeFrom }, () => ctx.clock.now())
      await completeImport(ctx.db, job.id, p, ctx.clock.now())
      ctx.log.info('import completed', {
        import_id: job.id,
        processed: p.processed,
        inserted: p.inserted,
        updated: p.updated,
        skipped: p.skipped,
      })
    } catch (err) {
      const message = (err as Error).message
      await failImport(ctx.db, job.id, message, ctx.clock.now())
      ctx.log.warn('import failed', { import_id: job.id, error: message })
    }
    rmSync(job.file, { force: true })
    return { worked: true }
  }

  // A job is claimed by setting it running; one interrupted by a stop is still running at the
  // next start, and goes on after its last committed batch.
  return createLeasedWorker(ctx, { name: 'imports', pass, idleMs: IDLE_POLL_MS })
}
