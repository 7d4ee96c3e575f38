import type { AppContext } from '../context'
import { startDueCampaigns } from '../services/campaigns/launch'
import { reverifyDomains } from '../services/domains/verify'
import { purgeIdempotencyKeys } from '../services/idempotency'
import { refreshSegmentSizes } from '../services/segments/manage'

/** Registers every named job of the instance. Later issues add theirs here. */
export function registerJobs(ctx: AppContext): void {
  ctx.jobs.register({
    name: 'campaigns.start-scheduled',
    schedule: '* * * * * *',
    description: 'Start scheduled campaigns whose scheduled_at has come (checked every second)',
    run: () => {
      startDueCampaigns(ctx)
    },
  })
  ctx.jobs.register({
    name: 'idempotency.purge',
    schedule: '17 * * * *',
    description: 'Delete stored Idempotency-Key responses older than 24 hours',
    run: () => {
      const removed = purgeIdempotencyKeys(ctx)
      if (removed > 0) ctx.log.info('idempotency keys purged', { removed })
    },
  })
  ctx.jobs.register({
    name: 'segments.refresh',
    schedule: '*/15 * * * *',
    description: "Recompute every segment's estimated_size",
    run: () => {
      refreshSegmentSizes(ctx)
    },
  })
  ctx.jobs.register({
    name: 'domains.reverify',
    schedule: '41 3 * * *',
    description: 'Re-check the DNS of verified domains; flag those that no longer pass (status broken)',
    run: async () => {
      const summary = await reverifyDomains(ctx)
      ctx.log.info('domains re-verified', {
        checked: summary.checked,
        broken: summary.broken,
        recovered: summary.recovered,
      })
    },
  })
}
