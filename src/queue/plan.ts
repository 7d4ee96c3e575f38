import { eq } from 'drizzle-orm'
import type { AppContext } from '../context'
import { type CampaignRow, campaigns, clients } from '../db/schema'
import { assertSendable } from '../services/campaigns/content'
import { type ResolvedSender, resolveSender } from '../services/campaigns/sender'
import { type DkimSigning, dkimForSender } from '../services/domains/dkim'
import { type CompiledTemplate, compileTemplate } from '../services/templates/render'
import { clientVariables } from '../services/templates/variables'
import { trackingKeyOf } from '../services/tracking/resolve'

// Everything about a campaign that is the same for each recipient, worked out once and reused
// for every batch: compiled content, sender, DKIM key, client variables. A plan lives for a
// few seconds so that a changed sender or domain is picked up without a restart.

export interface SendPlan {
  campaign: CampaignRow
  compiled: CompiledTemplate
  sender: ResolvedSender | null
  dkim: DkimSigning | null
  /** A suspended client's sends stop (DESIGN.md §7) until it is active again. */
  clientSuspended: boolean
  /** Domain of the Message-ID: the sender's, else the public host. */
  idDomain: string
  variables: { client: Record<string, unknown>; campaign: Record<string, unknown> }
}

const PLAN_TTL_MS = 5_000

export function createPlanCache(app: AppContext) {
  const plans = new Map<string, { plan: SendPlan; until: number }>()
  const host = new URL(app.config.publicUrl).hostname
  return {
    key: trackingKeyOf(app),
    /** The plan for a campaign, or an Error saying why it cannot send (the campaign then fails). */
    get(campaignId: string): SendPlan | Error {
      const now = app.clock.now()
      const campaign = app.db.select().from(campaigns).where(eq(campaigns.id, campaignId)).get()
      if (!campaign) return new Error('the campaign no longer exists')
      const hit = plans.get(campaignId)
      if (hit && hit.until > now && hit.plan.campaign.updatedAt === campaign.updatedAt)
        return { ...hit.plan, campaign }
      try {
        const content = assertSendable(app, campaign)
        const sender = campaign.channel === 'email' ? resolveSender(app, campaign) : null
        const client = app.db.select().from(clients).where(eq(clients.id, campaign.clientId)).get()!
        const plan: SendPlan = {
          campaign,
          compiled: compileTemplate(content),
          clientSuspended: client.status !== 'active',
          sender,
          dkim:
            sender && app.config.emailProvider === 'smtp'
              ? dkimForSender(app, campaign.clientId, sender.fromEmail)
              : null,
          idDomain: sender ? sender.fromEmail.slice(sender.fromEmail.lastIndexOf('@') + 1) : host,
          variables: {
            client: clientVariables(client),
            campaign: { id: campaign.id, name: campaign.name, channel: campaign.channel },
          },
        }
        plans.set(campaignId, { plan, until: now + PLAN_TTL_MS })
        return plan
      } catch (err) {
        return err instanceof Error ? err : new Error(String(err))
      }
    },
    forget(campaignId: string) {
      plans.delete(campaignId)
    },
  }
}

export type PlanCache = ReturnType<typeof createPlanCache>
