import { defineVerb } from '../verbs/define'
import { listAlerts } from './alerts'
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
