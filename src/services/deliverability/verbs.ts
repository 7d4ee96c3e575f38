import { defineVerb } from '../verbs/define'
import { listAlerts } from './alerts'
import { ListAlertsInput, ScoreInput } from './inputs'
import { deliverabilityScore } from './score'

export const deliverabilityScoreVerb = defineVerb({
  name: 'deliverability.score',
  scope: 'analytics:read',
  input: ScoreInput,
  mutates: false,
  run: (ctx, input) => deliverabilityScore(ctx, input.client_id),
})

export const listDeliverabilityAlertsVerb = defineVerb({
  name: 'deliverability.alerts',
  scope: 'analytics:read',
  input: ListAlertsInput,
  mutates: false,
  run: (ctx, input) => listAlerts(ctx, input),
})
