import { rmSync } from 'node:fs'
import { eq, inArray } from 'drizzle-orm'
import { type AppContext, appOf } from '../../context'
import { contactImports } from '../../db/schema'
import { type ImportProgress, processImport } from './process'

// Imports run in the background, one at a time, in the server process. The job row is the
// truth: a restart finds queued or interrupted jobs and runs them again from the start, which
// is safe because a re-run of the same file changes nothing already written.

export interface ImportRunner {
  kick(): void
  /** Resolves when no import is queued or running (tests, shutdown). */
  idle(): Promise<void>
}

const runners = new WeakMap<AppContext, ImportRunner>()

export function importRunnerFor(ctx: AppContext): ImportRunner {
  const root = appOf(ctx)
  let runner = runners.get(root)
  if (!runner) {
    runner = createRunner(root)
    runners.set(root, runner)
  }
  return runner
}

function createRunner(ctx: AppContext): ImportRunner {
  let running: Promise<void> | null = null
  let again = false

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

  async function drain() {
    for (;;) {
      const job = ctx.db
        .select()
        .from(contactImports)
        .where(inArray(contactImports.status, ['queued', 'running']))
        .orderBy(contactImports.id)
        .limit(1)
        .get()
      if (!job) return
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
    }
  }

  const runner: ImportRunner = {
    kick() {
      if (running) {
        again = true // a job queued while the loop was finishing is picked up by a second pass
        return
      }
      running = drain().finally(() => {
        running = null
        if (again) {
          again = false
          runner.kick()
        }
      })
    },
    async idle() {
      while (running) await running
    },
  }
  return runner
}
