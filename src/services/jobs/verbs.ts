import { Type as t } from '@sinclair/typebox'
import type { Ctx } from '../../context'
import { notFound } from '../../errors'
import type { JobInfo } from '../../jobs/registry'
import { defineVerb } from '../verbs/define'
import { NoInput, strict } from '../verbs/schemas'
import { listJobs, recordRun } from './runs'

// The named jobs of src/jobs/ for the portal's jobs page (portal-only: neither the spec nor
// DESIGN names a REST operation for them). Owners and admins only (admin:*). A job runs as
// Herald itself (systemActor `job:<name>`, as on its schedule); the verb is what checks that the
// user asking may run it.

export const listJobsVerb = defineVerb({
  name: 'jobs.list',
  scope: 'admin:*',
  input: NoInput,
  mutates: false,
  run: async (ctx) => await listJobs(ctx),
})

const RunRecord = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 100 }),
    started_at: t.Integer({ minimum: 0 }),
    outcome: t.Union([t.Literal('ok'), t.Literal('failed')]),
    duration_ms: t.Number({ minimum: 0 }),
    error: t.Union([t.String({ maxLength: 10_000 }), t.Null()]),
  },
  strict,
)

/** Stores a job's run as it ended (src/jobs/ calls it as Herald after every run). */
export const recordJobRunVerb = defineVerb({
  name: 'jobs.record-run',
  scope: 'admin:*',
  input: RunRecord,
  mutates: true,
  run: async (ctx, input) => await recordRun(ctx, input),
})

const JobRef = t.Object({ name: t.String({ minLength: 1, maxLength: 100 }) }, strict)

async function findJob(ctx: Ctx, name: string): Promise<JobInfo> {
  const job = (await listJobs(ctx)).find((j) => j.name === name)
  if (!job) throw notFound('Job')
  return job
}

export const runJobVerb = defineVerb({
  name: 'jobs.run',
  scope: 'admin:*',
  input: JobRef,
  mutates: true,
  // The job is I/O of its own (it invokes verbs, each in its own transaction): it runs here,
  // outside the transaction; run answers with what the registry recorded of it.
  prepare: async (ctx, { name }) => {
    await findJob(ctx, name)
    await ctx.jobs.runNow(name)
  },
  run: async (ctx, { name }) => await findJob(ctx, name),
})
