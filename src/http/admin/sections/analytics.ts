import { ServiceError } from '../../../errors'
import { INTERVALS, METRICS } from '../../../services/analytics/inputs'
import { analyticsFunnelVerb, analyticsTrendsVerb } from '../../../services/analytics/verbs'
import { listCampaignsVerb } from '../../../services/campaigns/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { type FieldErrors, fieldErrorsOf } from '../forms'
import { defineSection, type PortalRequest, page } from '../types'
import { barChart, funnelBars } from './analytics-charts'
import { queryValue } from './links'

// Analytics: the funnel and one metric over time for the workspace, from the same
// verbs as GET /analytics/funnel and /analytics/trends, with their filters as a GET form (a
// bookmarkable URL). The trend is a server-rendered SVG with a table as its text alternative.

const PATH = '/admin/analytics'
const CHANNELS = ['email', 'sms', 'voice', 'whatsapp', 'rcs'] as const

/** The filters the page was asked with (the verbs check them; a bad one is shown next to its field). */
function filtersOf(req: PortalRequest) {
  const f: Record<string, string | undefined> = {
    from: queryValue(req, 'from'),
    to: queryValue(req, 'to'),
    timezone: queryValue(req, 'timezone') ?? req.user.timezone ?? 'UTC',
    metric: queryValue(req, 'metric') ?? 'sent',
    interval: queryValue(req, 'interval') ?? 'day',
    channel: queryValue(req, 'channel'),
    campaign_id: queryValue(req, 'campaign_id'),
  }
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as Record<string, string>
}

async function analyticsPage(req: PortalRequest) {
  if (!req.workspace)
    return page('pages/analytics/index', 'Analytics', { no_workspace: true, errors: {}, values: {} })
  const values = filtersOf(req)
  let errors: FieldErrors = {}
  let funnel: Awaited<ReturnType<typeof analyticsFunnelVerb.run>> | null = null
  let trends: Awaited<ReturnType<typeof analyticsTrendsVerb.run>> | null = null
  try {
    const { metric, interval, ...window } = values
    funnel = await invoke(analyticsFunnelVerb, req.ctx, window)
    trends = await invoke(analyticsTrendsVerb, req.ctx, { ...window, metric, interval })
  } catch (err) {
    if (!(err instanceof ServiceError) || err.code !== 'VALIDATION_FAILED') throw err
    errors = fieldErrorsOf(err)
    errors._summary ??= 'Some filters are not valid: see the messages below.'
  }
  const campaigns = await invoke(listCampaignsVerb, req.ctx, { limit: 200 }).catch(() => ({ data: [] }))
  const points = trends?.points ?? []
  return page('pages/analytics/index', 'Analytics', {
    values,
    errors,
    funnel,
    funnel_bars: funnel ? funnelBars(funnel.steps) : [],
    trends,
    chart: barChart(points.map((p) => ({ label: p.local, value: p.value }))),
    metrics: METRICS,
    intervals: INTERVALS,
    channels: CHANNELS,
    campaigns: (campaigns.data as { id: string; name: string }[]).map((c) => ({ id: c.id, name: c.name })),
  })
}

export const analyticsSection = defineSection({
  path: PATH,
  title: 'Analytics',
  order: 75,
  group: 'insights',
  routes: [{ method: 'GET', path: PATH, handler: analyticsPage }],
})
