import { ServiceError } from '../../../errors'
import { analyticsTrendsVerb } from '../../../services/analytics/verbs'
import { listClientsVerb } from '../../../services/clients/verbs'
import { deliverabilityScoreVerb, listDeliverabilityAlertsVerb } from '../../../services/deliverability/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { defineSection, type PortalRequest, page } from '../types'
import { barChart } from './analytics-charts'
import { queryValue } from './links'

// Deliverability: in a workspace, its score with each factor's advice, the open
// alerts as a banner, authentication per domain, the warm-up of new domains and the campaigns
// behind complaints and bounces. Without a workspace (owners and admins across every client),
// the agency overview: each client's score, grade, open alerts and 30 days of sends.

const PATH = '/admin/deliverability'

async function clientPage(req: PortalRequest, clientId: string | undefined) {
  const score = await invoke(deliverabilityScoreVerb, req.ctx, clientId ? { client_id: clientId } : {})
  const history = await invoke(listDeliverabilityAlertsVerb, req.ctx, {
    client_id: score.client_id,
    limit: 10,
  })
  const name = req.workspace?.name ?? req.workspaces.find((w) => w.id === score.client_id)?.name ?? ''
  return page('pages/deliverability/client', `Deliverability: ${name}`, {
    name,
    score,
    alerts: score.alerts,
    history: history.data,
    overview: req.workspace === null,
  })
}

async function overviewPage(req: PortalRequest) {
  const clients = await invoke(listClientsVerb, req.ctx, { limit: 200 })
  const rows = []
  for (const c of clients.data as { id: string; name: string }[]) {
    const score = await invoke(deliverabilityScoreVerb, req.ctx, { client_id: c.id })
    const sent = await invoke(analyticsTrendsVerb, req.ctx, { client_id: c.id, metric: 'sent' })
    rows.push({
      id: c.id,
      name: c.name,
      score: score.score,
      grade: score.grade,
      scored_on: score.scored_on,
      alerts: score.alerts.length,
      worst: score.factors.filter((f) => f.status === 'bad').map((f) => f.name),
      sent: sent.total,
      spark: barChart(
        sent.points.map((p) => ({ label: p.local, value: p.value })),
        150,
        30,
      ),
    })
  }
  return page('pages/deliverability/overview', 'Deliverability', { rows, total: clients.pagination.total })
}

export const deliverabilitySection = defineSection({
  path: PATH,
  title: 'Deliverability',
  order: 76,
  group: 'insights',
  routes: [
    {
      method: 'GET',
      path: PATH,
      handler: async (req) => {
        const clientId = queryValue(req, 'client_id')
        if (req.workspace || clientId) {
          try {
            return await clientPage(req, req.workspace ? undefined : clientId)
          } catch (err) {
            // A client id that names no client: the overview, not an error page.
            if (err instanceof ServiceError && err.code === 'VALIDATION_FAILED' && !req.workspace)
              return await overviewPage(req)
            throw err
          }
        }
        return await overviewPage(req)
      },
    },
  ],
})
