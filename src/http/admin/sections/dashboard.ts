import { notFound, ServiceError } from '../../../errors'
import { analyticsTrendsVerb } from '../../../services/analytics/verbs'
import { listApiKeysVerb } from '../../../services/api-keys/verbs'
import { listCampaignsVerb } from '../../../services/campaigns/verbs'
import { listContactsVerb } from '../../../services/contacts/verbs'
import { filterDomainsVerb } from '../../../services/domains/verbs'
import { listListsVerb } from '../../../services/lists/verbs'
import { listTemplatesVerb } from '../../../services/templates/verbs'
import type { Verb } from '../../../services/verbs/define'
import { invoke } from '../../../services/verbs/invoke'
import { filterWebhooksVerb } from '../../../services/webhooks/verbs'
import { lineChart } from '../charts'
import { defineSection, fragment, type PortalRequest, page } from '../types'
import { campaignProgress } from './campaign-progress'

// The dashboard: what an operator must act on. Totals from the list verbs (maintained counters
// for contacts; small tables otherwise); the last 30 days of sends, deliveries, opens and clicks
// from the analytics trends verb (rollups, never the events); running campaigns with a polled
// progress bar; what waits in their queues (from the campaigns' counters) and what of it a
// sending limit holds back (each campaign's `deferred`); webhook endpoints
// failing; domains not verified. A figure the user's role may not read is left out rather than
// failing the page.

// biome-ignore lint/suspicious/noExplicitAny: any list verb whose answer has pagination.total
type ListVerb = Verb<any, { pagination: { total: number } }, undefined>

/** The verb's answer, or null when the role may not read it. */
async function readable<T>(run: () => Promise<T>): Promise<T | null> {
  try {
    return await run()
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'FORBIDDEN') return null
    throw err
  }
}

const total = async (req: PortalRequest, verb: ListVerb) =>
  (await readable(async () => await invoke(verb, req.ctx, { limit: 1 })))?.pagination.total ?? null

const METRICS = [
  { metric: 'sent', name: 'Sends' },
  { metric: 'delivered', name: 'Deliveries' },
  { metric: 'opened', name: 'Opens' },
  { metric: 'clicked', name: 'Clicks' },
] as const

/** The 30-day chart of the chosen workspace (the trends verb needs one client). */
async function activity(req: PortalRequest) {
  if (!req.workspace) return null
  const timezone = req.user.timezone ?? 'UTC'
  const series = []
  let labels: string[] = []
  for (const m of METRICS) {
    const t = await readable(
      async () => await invoke(analyticsTrendsVerb, req.ctx, { metric: m.metric, interval: 'day', timezone }),
    )
    if (!t) return null
    labels = t.points.map((p) => p.local.slice(0, 10))
    series.push({ name: m.name, values: t.points.map((p) => p.value) })
  }
  return { chart: lineChart(labels, series), timezone, from: labels[0], to: labels.at(-1) }
}

/** Running campaigns (sending or paused), with what is left in their queues. */
/** The running and paused campaigns with their progress, and the messages they still owe. */
async function running(req: PortalRequest) {
  const campaigns = []
  for (const status of ['sending', 'paused'] as const) {
    const page = await readable(async () => await invoke(listCampaignsVerb, req.ctx, { status, limit: 20 }))
    for (const c of page?.data ?? []) campaigns.push(campaignProgress(c))
  }
  // A client held back by a sending limit is told so here, not only on each campaign's page.
  const held = campaigns.filter((c) => c.held !== null)
  return {
    campaigns,
    queued: campaigns.reduce((n, c) => n + c.remaining, 0),
    held: held.length ? { campaigns: held.length, count: held.reduce((n, c) => n + c.held!.count, 0) } : null,
  }
}

export const dashboard = defineSection({
  path: '/admin',
  title: 'Dashboard',
  order: 0,
  group: 'insights',
  routes: [
    {
      method: 'GET',
      path: '/admin',
      handler: async (req) => {
        const figures = [
          {
            label: 'Contacts',
            value: await total(req, listContactsVerb as ListVerb),
            href: '/admin/contacts',
          },
          { label: 'Lists', value: await total(req, listListsVerb as ListVerb), href: '/admin/lists' },
          {
            label: 'Templates',
            value: await total(req, listTemplatesVerb as ListVerb),
            href: '/admin/templates',
          },
          {
            label: 'Campaigns',
            value: await total(req, listCampaignsVerb as ListVerb),
            href: '/admin/campaigns',
          },
          {
            label: 'API keys',
            value: await total(req, listApiKeysVerb as ListVerb),
            href: '/admin/api-keys',
          },
        ].filter((f) => f.value !== null)
        const { campaigns, queued, held } = await running(req)
        // What counts as failing or unverified is the verbs' filter, over every row.
        const failing = await readable(
          async () => await invoke(filterWebhooksVerb, req.ctx, { failing: true, limit: 200 }),
        )
        const unverified = await readable(
          async () => await invoke(filterDomainsVerb, req.ctx, { verified: false, limit: 200 }),
        )
        return page('pages/dashboard/index', 'Dashboard', {
          figures,
          activity: await activity(req),
          campaigns,
          queued,
          held,
          failing: failing?.data ?? null,
          unverified: unverified?.data ?? null,
        })
      },
    },
    {
      // A part of the dashboard alone for its own polling (only `running`: the running
      // campaigns' table, polled while any of them is sending). A parameter, because a path
      // without one is a page (full and htmx partial) to the portal's tests.
      method: 'GET',
      path: '/admin/dashboard/:part',
      handler: async (req) => {
        if (req.params.part !== 'running') throw notFound('Dashboard part')
        return fragment('pages/dashboard/running', await running(req))
      },
    },
  ],
})
