import type { Ctx } from '../../context'
import { jobRuns } from '../../db/schema'
import type { JobInfo } from '../../jobs/registry'
import { iso } from '../../lib/time'

export interface RecordedRun {
  name: string
  started_at: number
  outcome: 'ok' | 'failed'
  duration_ms: number
  error: string | null
}

/** jobs.record-run: the job's last run replaces the one stored (one row per job). */
export async function recordRun(ctx: Ctx, run: RecordedRun) {
  const row = {
    lastRunAt: run.started_at,
    outcome: run.outcome,
    durationMs: Math.round(run.duration_ms),
    error: run.error,
  }
  await ctx.db
    .insert(jobRuns)
    .values({ name: run.name, ...row })
    .onConflictDoUpdate({ target: jobRuns.name, set: row })
  return { name: run.name, recorded: true }
}

/**
 * The registry's jobs with their last run: the stored one (any process, any restart) unless this
 * process has a newer one in memory (a run still being recorded). At most a few rows: no paging.
 */
export async function listJobs(ctx: Ctx): Promise<JobInfo[]> {
  const stored = new Map((await ctx.db.select().from(jobRuns)).map((r) => [r.name, r]))
  return ctx.jobs.list().map((job) => {
    const row = stored.get(job.name)
    const memory = job.last_run_at ? Date.parse(job.last_run_at) : 0
    if (!row || row.lastRunAt < memory) return job
    return {
      ...job,
      last_run_at: iso(row.lastRunAt),
      last_outcome: row.outcome,
      last_duration_ms: row.durationMs,
      last_error: row.error,
    }
  })
}
