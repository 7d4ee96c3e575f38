import { defineVerb } from '../verbs/define'
import { funnel } from './funnel'
import { FunnelInput, RebuildInput, TrendsInput } from './inputs'
import { rebuild } from './rebuild'
import { trends } from './trends'
import { timezoneErrors } from './window'

export const analyticsFunnelVerb = defineVerb({
  name: 'analytics.funnel',
  // Any valid API key reads analytics (the spec gives these reads no scope); an OAuth token
  // needs `analytics:read`.
  scope: 'any',
  input: FunnelInput,
  mutates: false,
  check: timezoneErrors,
  run: async (ctx, input) => await funnel(ctx, input),
})

export const analyticsTrendsVerb = defineVerb({
  name: 'analytics.trends',
  // Any valid API key reads analytics (the spec gives these reads no scope); an OAuth token
  // needs `analytics:read`.
  scope: 'any',
  input: TrendsInput,
  mutates: false,
  check: timezoneErrors,
  run: async (ctx, input) => await trends(ctx, input),
})

/** `herald analytics rebuild`: the rollups recomputed from the messages. */
export const analyticsRebuildVerb = defineVerb({
  name: 'analytics.rebuild',
  scope: 'admin:*',
  input: RebuildInput,
  mutates: true,
  run: async (ctx, input) => await rebuild(ctx, input.client_id),
})
