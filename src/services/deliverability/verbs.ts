import { defineVerb } from '../verbs/define'
import { NoInput } from '../verbs/schemas'
import { listAlerts } from './alerts'
import { runPendingHealthChecks } from './health-debounce'
import { ListAlertsInput, ScoreInput } from './inputs'
import { deliverabilityScore } from './score'

export const deliverabilityScoreVerb = defineVerb({
  name: 'deliverability.score',
  // Any valid API key reads analytics (the spec gives these reads no scope); an OAuth token
  // needs `analytics:read`.
  scope: 'any',
  input: ScoreInput,
  mutates: false,
  run: async (ctx, input) => await deliverabilityScore(ctx, input.client_id),
})

export const listDeliverabilityAlertsVerb = defineVerb({
  name: 'deliverability.alerts',
  // Any valid API key reads analytics (the spec gives these reads no scope); an OAuth token
  // needs `analytics:read`.
  scope: 'any',
  input: ListAlertsInput,
  mutates: false,
  run: async (ctx, input) => await listAlerts(ctx, input),
})

/** The job behind the per-client debounce of the sending-health check (./health-debounce.ts). */
export const runPendingHealthChecksVerb = defineVerb({
  name: 'deliverability.health',
  scope: 'admin:*',
  input: NoInput,
  mutates: true,
  run: async (ctx) => await runPendingHealthChecks(ctx),
})
