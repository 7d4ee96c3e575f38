import type { TSchema } from '@sinclair/typebox'
import { type AppContext, withActor } from '../context'
import { DIALECT } from '../db/dialect'
import { systemActor } from '../services/actors/actor'
import { purgeRegistrationsVerb } from '../services/agents/verbs'
import { decisionDue } from '../services/campaigns/ab-schedule'
import { decideDueTestsVerb, startScheduledCampaignsVerb } from '../services/campaigns/verbs'
import { healthChecksDue } from '../services/deliverability/health-debounce'
import { runPendingHealthChecksVerb } from '../services/deliverability/verbs'
import { reverifyDomainsVerb } from '../services/domains/verbs'
import { purgeIdempotencyKeysVerb } from '../services/idempotency'
import { BACKUP_ON_POSTGRES } from '../services/instance/backup'
import { runScheduledBackup } from '../services/instance/scheduled-backup'
import { claimJobSlot } from '../services/jobs/slots'
import { recordJobRunVerb } from '../services/jobs/verbs'
import { enterSegmentJourneysVerb } from '../services/journeys/verbs'
import { purgeSharedLimitsVerb } from '../services/limits/purge'
import { purgeUnconfirmedVerb } from '../services/lists/purge-unconfirmed'
import { purgeOAuthVerb } from '../services/oauth/verbs'
import { refreshSegmentSizesVerb } from '../services/segments/verbs'
import type { Verb } from '../services/verbs/define'
import { invoke } from '../services/verbs/invoke'

/** A job runs its verb as Herald itself, through the same `invoke` as every other door. */
async function runAs<I extends TSchema, R, P>(
  ctx: AppContext,
  name: string,
  verb: Verb<I, R, P>,
): Promise<R> {
  return await invoke(verb, withActor(ctx, systemActor(`job:${name}`), `job:${name}`), {})
}

/** Registers every named job of the instance. Later issues add theirs here. */
export function registerJobs(ctx: AppContext): void {
  // Each scheduled firing runs in one process of those sharing the database.
  ctx.jobs.claimSlotsWith((name, slotAt) => claimJobSlot(ctx.db, name, slotAt))
  // Every run's end is stored (time, outcome, duration) for the portal's jobs page.
  ctx.jobs.onRunEnd((run) =>
    invoke(recordJobRunVerb, withActor(ctx, systemActor(`job:${run.name}`), `job:${run.name}`), {
      name: run.name,
      started_at: run.startedAt,
      outcome: run.outcome,
      duration_ms: run.durationMs,
      error: run.error?.slice(0, 10_000) ?? null,
    }).then(() => undefined),
  )
  ctx.jobs.register({
    name: 'campaigns.start-scheduled',
    schedule: '* * * * * *',
    description: 'Start scheduled campaigns whose scheduled_at has come (checked every second)',
    run: async () => {
      await runAs(ctx, 'campaigns.start-scheduled', startScheduledCampaignsVerb)
    },
  })
  ctx.jobs.register({
    name: 'campaigns.decide-ab-tests',
    schedule: '* * * * * *',
    description:
      'Choose the winner of each A/B test whose duration has passed and send it to the rest of the audience (checked every second; skipped while no test is due)',
    due: () => decisionDue(ctx),
    run: async () => {
      await runAs(ctx, 'campaigns.decide-ab-tests', decideDueTestsVerb)
    },
  })
  ctx.jobs.register({
    name: 'deliverability.health',
    schedule: '*/5 * * * * *',
    description:
      'Run the bounce and complaint rate checks a burst put off (at most one per client every 5 seconds; skipped while none is pending)',
    // Every 5 s, but idle firings are skipped: no transaction and no job run written.
    due: () => healthChecksDue(ctx),
    run: async () => {
      await runAs(ctx, 'deliverability.health', runPendingHealthChecksVerb)
    },
  })
  ctx.jobs.register({
    name: 'idempotency.purge',
    schedule: '17 * * * *',
    description: 'Delete stored Idempotency-Key responses older than 24 hours',
    run: async () => {
      const { removed } = await runAs(ctx, 'idempotency.purge', purgeIdempotencyKeysVerb)
      if (removed > 0) ctx.log.info('idempotency keys purged', { removed })
    },
  })
  ctx.jobs.register({
    name: 'limits.purge',
    schedule: '41 * * * *',
    description: 'Delete shared sending windows long over and rate buckets idle for a day',
    run: async () => {
      const r = await runAs(ctx, 'limits.purge', purgeSharedLimitsVerb)
      if (r.windows + r.buckets > 0) ctx.log.info('shared limits purged', r)
    },
  })
  ctx.jobs.register({
    name: 'agents.purge',
    schedule: '23 * * * *',
    description: 'Delete agent registrations past their 24 hours that were never claimed',
    run: async () => {
      const { removed } = await runAs(ctx, 'agents.purge', purgeRegistrationsVerb)
      if (removed > 0) ctx.log.info('agent registrations purged', { removed })
    },
  })
  ctx.jobs.register({
    name: 'oauth.purge',
    schedule: '29 * * * *',
    description:
      'Delete OAuth codes, refresh tokens, token revocations and grants 7 days after they expired, spent ID-JAG jtis once expired (in chunks)',
    run: async () => {
      // One transaction per chunk, so a backlog never holds the write lock for long.
      const removed = { codes: 0, refresh_tokens: 0, revoked_tokens: 0, grants: 0, used_assertions: 0 }
      for (let more = true; more; ) {
        const r = await runAs(ctx, 'oauth.purge', purgeOAuthVerb)
        for (const k of Object.keys(removed) as (keyof typeof removed)[]) removed[k] += r[k]
        more = r.more
      }
      if (Object.values(removed).some((n) => n > 0)) ctx.log.info('oauth rows purged', removed)
    },
  })
  ctx.jobs.register({
    name: 'journeys.segment-entered',
    schedule: '* * * * *',
    description: 'Contacts newly matching the segment of a segment_entered journey enter it (every minute)',
    run: async () => {
      const r = await runAs(ctx, 'journeys.segment-entered', enterSegmentJourneysVerb)
      if (r.enrolled > 0) ctx.log.info('segment journeys entered', r)
    },
  })
  ctx.jobs.register({
    name: 'segments.refresh',
    schedule: '*/15 * * * *',
    description: "Recompute every segment's estimated_size",
    run: async () => {
      await runAs(ctx, 'segments.refresh', refreshSegmentSizesVerb)
    },
  })
  ctx.jobs.register({
    name: 'lists.purge-unconfirmed',
    schedule: '47 4 * * *',
    description: 'Remove double opt-in memberships left unconfirmed for 30 days (in chunks)',
    run: async () => {
      let removed = 0
      for (let more = true; more; ) {
        const r = await runAs(ctx, 'lists.purge-unconfirmed', purgeUnconfirmedVerb)
        removed += r.removed
        more = r.more
      }
      if (removed > 0) ctx.log.info('unconfirmed memberships purged', { removed })
    },
  })
  ctx.jobs.register({
    name: 'domains.reverify',
    schedule: '41 3 * * *',
    description: 'Re-check the DNS of verified domains; flag those that no longer pass (status broken)',
    run: async () => {
      const summary = await runAs(ctx, 'domains.reverify', reverifyDomainsVerb)
      ctx.log.info('domains re-verified', {
        checked: summary.checked,
        broken: summary.broken,
        recovered: summary.recovered,
      })
    },
  })
  const { backupDir, backupEvery, backupKeep } = ctx.config
  // Off unless HERALD_BACKUP_DIR is set: a backup nobody asked for can fill a disk. It copies the
  // SQLite file: on PostgreSQL it is not registered, and the operator is told what to use.
  if (backupDir && DIALECT === 'postgres')
    ctx.log.warn('scheduled backups are off', { reason: BACKUP_ON_POSTGRES })
  else if (backupDir)
    ctx.jobs.register({
      name: 'backups.run',
      schedule: backupEvery,
      description: `Write an online backup of the data file into ${backupDir} and keep the newest ${backupKeep}`,
      run: async () => {
        const r = await runScheduledBackup(ctx.sqlite, backupDir, backupKeep, ctx.clock.now())
        ctx.log.info('backup written', { file: r.file, removed: r.removed.length })
      },
    })
}
