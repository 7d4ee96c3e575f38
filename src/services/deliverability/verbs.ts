import { defineVerb } from '../verbs/define'
import { NoInput } from '../verbs/schemas'
import { listAlerts } from './alerts'
import { runPendingHealthChecks } from './health-debounce'
import { ListAlertsInput, ScoreInput } from './inputs'
import { deliverabilityScore } from './score'

export const deliverabilityScoreVerb = defineVerb({
  name: 'deliverability.score',
  // Any valid key reads analytics (the spec's "default"; DESIGN §7); `analytics:read` is the
  // OAuth scope for it, checked once OAuth tokens exist.
  scope: 'any',
  input: ScoreInput,
  mutates: false,
  run: (ctx, input) => deliverabilityScore(ctx, input.client_id),
})

export const listDeliverabilityAlertsVerb = defineVerb({
  name: 'deliverability.alerts',
  // Any valid key reads analytics (the spec's "default"; DESIGN §7); `analytics:read` is the
  // OAuth scope for it, checked once OAuth tokens exist.
  scope: 'any',
  input: ListAlertsInput,
  mutates: false,
  run: (ctx, input) => listAlerts(ctx, input),
})

/** The job behind the per-client debounce of the sending-health check (./health-debounce.ts). */
export const runPendingHealthChecksVerb = defineVerb({
  name: 'deliverability.health',
  scope: 'admin:*',
  input: NoInput,
  mutates: true,
  run: (ctx) => runPendingHealthChecks(ctx),
})
