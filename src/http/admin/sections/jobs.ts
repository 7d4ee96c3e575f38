import { listJobsVerb, runJobVerb } from '../../../services/jobs/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { defineSection, page, redirect } from '../types'
import { platformCtx } from './platform'

// Scheduled jobs (src/jobs/): each with its schedule, next and last run (time, outcome,
// duration, since this process started) and "Run now" — through jobs.run, which checks the
// user may (admin:*: owners and admins) and runs the job as Herald itself, as its schedule does.

const PATH = '/admin/jobs'

export const jobsSection = defineSection({
  path: PATH,
  title: 'Jobs',
  order: 95,
  group: 'admin',
  roles: ['owner', 'admin'],
  routes: [
    {
      method: 'GET',
      path: PATH,
      handler: async (req) =>
        page('pages/jobs/index', 'Jobs', { jobs: await invoke(listJobsVerb, platformCtx(req), {}) }),
    },
    {
      method: 'POST',
      path: `${PATH}/:name/run`,
      handler: async (req) => {
        const job = await invoke(runJobVerb, platformCtx(req), { name: req.params.name ?? '' })
        return redirect(PATH, {
          kind: job.last_outcome === 'failed' ? 'error' : 'success',
          message:
            job.last_outcome === 'failed'
              ? `${job.name} failed after ${job.last_duration_ms} ms: ${job.last_error}`
              : `Ran ${job.name} in ${job.last_duration_ms} ms.`,
        })
      },
    },
  ],
})
