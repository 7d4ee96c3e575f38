import { Type as t } from '@sinclair/typebox'
import type { Ctx } from '../../context'
import { notFound } from '../../errors'
import type { JobInfo } from '../../jobs/registry'
import { defineVerb } from '../verbs/define'
import { NoInput, strict } from '../verbs/schemas'

// The named jobs of src/jobs/ for the portal's jobs page (portal-only: neither the spec nor
// DESIGN names a REST operation for them). Owners and admins only (admin:*). A job runs as
// Herald itself (systemActor `job:<name>`, as on its schedule); the verb is what checks that the
// user asking may run it.

export const listJobsVerb = defineVerb({
  name: 'jobs.list',
  scope: 'admin:*',
  input: NoInput,
  mutates: false,
  run: (ctx) => ctx.jobs.list(),
})

const JobRef = t.Object({ name: t.String({ minLength: 1, maxLength: 100 }) }, strict)

function findJob(ctx: Ctx, name: string): JobInfo {
  const job = ctx.jobs.list().find((j) => j.name === name)
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
    findJob(ctx, name)
    await ctx.jobs.runNow(name)
  },
  run: (ctx, { name }) => findJob(ctx, name),
})
