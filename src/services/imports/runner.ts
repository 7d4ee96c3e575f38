import { existsSync, rmSync } from 'node:fs'
import type { AppContext } from '../../context'
import {
  claimNextImport,
  completeImport,
  failImport,
  type ImportLease,
  ImportTakenOver,
  importWriter,
  nextImportLeaseEnd,
} from '../../db/imports'
import { createLeasedWorker, type LeasedWorker, type PassResult } from '../../queue/leased-worker'
import { ImportFailure, processImport } from './process'

// Imports run in the background, one at a time, in the server process. The job row is the
// truth: each batch commits with the job's counts and renews the job's lease
// (HERALD_IMPORT_LEASE_MS). A job whose lease ran out (its process died) is taken by the next
// pass of any process and runs on from the row its last batch reached; one under a live lease is
// another process's, and is left alone.

/** Imports are queued by a verb that kicks the worker; the poll only catches what a kick missed. */
const IDLE_POLL_MS = 5_000

/**
 * A queued import whose upload this process cannot read (it waits on another machine's disk, with
 * no HERALD_SHARED_DIR) is left to the process that has it for this long; then it is taken, and
 * fails saying why.
 */
const LEFT_TO_ITS_PROCESS_MS = 10 * 60_000

/** The import worker: one job at a time. */
export function createImportWorker(ctx: AppContext): LeasedWorker {
  const leaseMs = ctx.config.importLeaseMs

  /**
   * Every row is written by now, so a failure here (ANALYZE waiting over a second behind an
   * operator's VACUUM) costs the next campaign a slower plan, never the import.
   */
  async function refreshStatistics(importId: string): Promise<void> {
    try {
      await importWriter(ctx.sqlite).refreshStatistics()
    } catch (err) {
      ctx.log.warn('import statistics not refreshed', { import_id: importId, error: (err as Error).message })
    }
  }

  /** Runs the oldest queued (or abandoned) job to its end. */
  async function pass(): Promise<PassResult> {
    const now = ctx.clock.now()
    const job = await claimNextImport(
      ctx.db,
      now,
      now + leaseMs,
      (j) => j.status !== 'queued' || existsSync(j.file) || now - j.createdAt >= LEFT_TO_ITS_PROCESS_MS,
    )
    // A job held by another process (or a dead one) may be taken when its lease ends.
    if (!job) return { worked: false, nextAt: await nextImportLeaseEnd(ctx.db) }
    const lease: ImportLease = { ms: leaseMs, until: now + leaseMs }
    // Taken over by another process after this one's lease ran out (it stalled): that process
    // goes on with the job and its file, and this one leaves both alone.
    const takenOver = () => {
      ctx.log.warn('import taken over by another process', { import_id: job.id })
      return { worked: true }
    }
    try {
      const resumeFrom = {
        processed: job.processed,
        inserted: job.inserted,
        updated: job.updated,
        skipped: job.skipped,
        errors: job.errors,
      }
      const p = await processImport(ctx, { ...job, resumeFrom, lease }, () => ctx.clock.now())
      await refreshStatistics(job.id)
      if (!(await completeImport(ctx.db, job.id, p, ctx.clock.now(), lease))) return takenOver()
      ctx.log.info('import completed', {
        import_id: job.id,
        processed: p.processed,
        inserted: p.inserted,
        updated: p.updated,
        skipped: p.skipped,
      })
    } catch (err) {
      if (err instanceof ImportTakenOver) return takenOver()
      // What the file or the job did wrong is said to the client; anything else (a statement
      // the database refused, with the rows in its message) only in the log.
      const message = (err as Error).message
      const failure =
        err instanceof ImportFailure
          ? message
          : 'an internal error stopped the import (the server log has it)'
      if (!(await failImport(ctx.db, job.id, failure, ctx.clock.now(), lease))) return takenOver()
      ctx.log.warn('import failed', { import_id: job.id, error: message })
    }
    rmSync(job.file, { force: true })
    return { worked: true }
  }

  // No start-up recovery of its own: a pass takes a job whose lease ran out like a queued one.
  return createLeasedWorker(ctx, { name: 'imports', pass, idleMs: IDLE_POLL_MS })
}
