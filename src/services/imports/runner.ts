import { rmSync } from 'node:fs'
import { eq, inArray } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { contactImports } from '../../db/schema'
import { createLeasedWorker, type LeasedWorker } from '../../queue/leased-worker'
import { type ImportProgress, processImport } from './process'

// Imports run in the background, one at a time, in the server process. The job row is the
// truth: a restart finds queued or interrupted jobs and runs them again from the start, which
// is safe because a re-run of the same file changes nothing already written.

/** Imports are queued by a verb that kicks the worker; the poll only catches what a kick missed. */
const IDLE_POLL_MS = 5_000

/** The import worker: one job at a time, each from the start of its file. */
export function createImportWorker(ctx: AppContext): LeasedWorker {
  const save = (id: string, p: ImportProgress) =>
    ctx.db
      .update(contactImports)
      .set({
        processed: p.processed,
        inserted: p.inserted,
        updated: p.updated,
        skipped: p.skipped,
        errors: p.errors,
        updatedAt: ctx.clock.now(),
      })
      .where(eq(contactImports.id, id))
      .run()

  /** Runs the oldest queued (or interrupted) job to its end. */
  async function pass() {
    {
      const job = ctx.db
        .select()
        .from(contactImports)
        .where(inArray(contactImports.status, ['queued', 'running']))
        .orderBy(contactImports.id)
        .limit(1)
        .get()
      if (!job) return { worked: false }
      ctx.db
        .update(contactImports)
        .set({
          status: 'running',
          processed: 0,
          inserted: 0,
          updated: 0,
          skipped: 0,
          errors: [],
          updatedAt: ctx.clock.now(),
        })
        .where(eq(contactImports.id, job.id))
        .run()
      try {
        const p = await processImport(
          ctx.sqlite,
          job,
          () => ctx.clock.now(),
          (progress) => save(job.id, progress),
        )
        save(job.id, p)
        ctx.db
          .update(contactImports)
          .set({ status: 'completed', totalRows: p.processed, finishedAt: ctx.clock.now() })
          .where(eq(contactImports.id, job.id))
          .run()
        ctx.log.info('import completed', {
          import_id: job.id,
          processed: p.processed,
          inserted: p.inserted,
          updated: p.updated,
          skipped: p.skipped,
        })
      } catch (err) {
        const message = (err as Error).message
        ctx.db
          .update(contactImports)
          .set({
            status: 'failed',
            failure: message,
            finishedAt: ctx.clock.now(),
            updatedAt: ctx.clock.now(),
          })
          .where(eq(contactImports.id, job.id))
          .run()
        ctx.log.warn('import failed', { import_id: job.id, error: message })
      }
      rmSync(job.file, { force: true })
      return { worked: true }
    }
  }

  // A job is claimed by setting it running; one interrupted by a stop is still running at the
  // next start, and is run again from the start (a re-run of the same file changes nothing).
  return createLeasedWorker(ctx, { name: 'imports', pass, idleMs: IDLE_POLL_MS })
}
