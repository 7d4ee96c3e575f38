import { ServiceError } from '../../../errors'
import { listApiKeysVerb } from '../../../services/api-keys/verbs'
import { listCampaignsVerb } from '../../../services/campaigns/verbs'
import { listContactsVerb } from '../../../services/contacts/verbs'
import { listListsVerb } from '../../../services/lists/verbs'
import { listTemplatesVerb } from '../../../services/templates/verbs'
import type { Verb } from '../../../services/verbs/define'
import { invoke } from '../../../services/verbs/invoke'
import { defineSection, type PortalRequest, page } from '../types'

// The dashboard: how much there is in the workspace, from the list verbs' totals (maintained
// counters for contacts; small tables otherwise). A figure the user's role may not read is
// left out rather than failing the page.

// biome-ignore lint/suspicious/noExplicitAny: any list verb whose answer has pagination.total
type ListVerb = Verb<any, { pagination: { total: number } }, undefined>

async function total(req: PortalRequest, verb: ListVerb): Promise<number | null> {
  try {
    return (await invoke(verb, req.ctx, { limit: 1 })).pagination.total
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'FORBIDDEN') return null
    throw err
  }
}

export const dashboard = defineSection({
  path: '/admin',
  title: 'Dashboard',
  order: 0,
  routes: [
    {
      method: 'GET',
      path: '/admin',
      handler: async (req) => {
        const figures = [
          { label: 'Contacts', value: await total(req, listContactsVerb as ListVerb) },
          { label: 'Lists', value: await total(req, listListsVerb as ListVerb) },
          { label: 'Templates', value: await total(req, listTemplatesVerb as ListVerb) },
          { label: 'Campaigns', value: await total(req, listCampaignsVerb as ListVerb) },
          { label: 'API keys', value: await total(req, listApiKeysVerb as ListVerb) },
        ].filter((f) => f.value !== null)
        return page('pages/dashboard/index', 'Dashboard', { figures })
      },
    },
  ],
})
