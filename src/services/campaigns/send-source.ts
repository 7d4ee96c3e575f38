import type { AppContext } from '../../context'
import type { Outbox } from '../../db/outbox'
import type { CampaignRow } from '../../db/schema'
import { asError, PLAN_TTL_MS, type Planner, type SendPlan } from '../../queue/plan'
import { type MessageSource, SEND, type Verdict } from '../../queue/sources/types'
import { bumpCampaign } from '../messages/counters'
import { snapshotChunk } from './audience'
import { completeIfDone } from './complete'
import { assertSendable, variantContent } from './content'
import { campaignStatuses } from './fresh-status'
import { failCampaign } from './launch'
import { resolveSender } from './sender'
import { PAUSED, SCHEDULED, SENDING } from './states'

// A campaign's messages, as the send queue sees them (a MessageSource, wired in src/sending.ts):
// the audience is copied into the outbox after launch (also while paused), each sending campaign
// is a lane of its own, a pause holds its messages within a second, a cancel or failure drops
// them, 25 refusals and nothing sent fail it, and it completes with campaign.complete once
// nothing is queued or in flight.

/** Between a campaign id and a variant index in a plan key (never part of a UUID). */
const VARIANT_MARK = '#'

/** A campaign whose first this-many messages all failed permanently is failed as a whole. */
const REFUSED_EVERYTHING = 25

export interface CampaignPlan extends SendPlan {
  campaign: CampaignRow
}

export function createCampaignSource(
  app: AppContext,
  outbox: Outbox,
  planner: Planner,
): MessageSource<CampaignPlan> {
  const plans = new Map<string, { plan: CampaignPlan; until: number }>()
  // A copy that cannot go on (its list was deleted while the campaign was paused) stops being
  // retried; launching the campaign again fails it with the reason.
  const failedCopies = new Set<string>()
  const statuses = campaignStatuses(outbox)
  let sending: string[] = []

  const stateVerdict = (status: string | null): Verdict =>
    status === SENDING
      ? SEND
      : status === PAUSED
        ? { kind: 'defer', at: app.clock.now() }
        : { kind: 'cancel', reason: `campaign ${status}` }

  return {
    kind: 'campaign',
    owns: (m) => m.campaignId !== null,

    async beforeClaim() {
      const active = await outbox.campaignsIn(SENDING)
      sending = active.map((c) => c.id)
      // The audience copy goes on while a campaign is paused: the snapshot is of the launch, not
      // of whenever it resumes.
      const copying = [
        ...active.filter((c) => !c.snapshot_done).map((c) => c.id),
        ...(await outbox.unfinishedCopiesIn(PAUSED)).filter((id) => !failedCopies.has(id)),
        // A local-time campaign is copied at launch and waits, scheduled, for its first recipient.
        ...(await outbox.unfinishedCopiesIn(SCHEDULED)).filter((id) => !failedCopies.has(id)),
      ]
      // A copy another process is making is no work done here: a later pass looks again, and
      // meanwhile this process sends what that copy queues.
      let copied = false
      for (const id of copying) {
        try {
          if ((await snapshotChunk(app, id)) !== 'elsewhere') copied = true
        } catch (err) {
          // A paused campaign stays paused (and says why when it is resumed and fails then).
          await failCampaign(app, id, `the audience could not be read: ${(err as Error).message}`)
          failedCopies.add(id)
          copied = true
        }
      }
      return copied
    },

    // Retries and throttled messages come due by themselves: look again soon while sending.
    due: (now) => ({ lanes: sending, nextAt: sending.length > 0 ? now : null }),
    claim: async (campaignId, now, leaseUntil, limit) =>
      await outbox.claimCampaign(campaignId, now, leaseUntil, limit),

    // An A/B campaign's variants render apart: one plan per campaign and variant.
    planKey: (m) => (m.variant === null ? m.campaignId! : `${m.campaignId}${VARIANT_MARK}${m.variant}`),
    async plan(m) {
      const campaignId = m.campaignId!
      const key = m.variant === null ? campaignId : `${campaignId}${VARIANT_MARK}${m.variant}`
      const now = app.clock.now()
      const campaign = await outbox.campaignRow(campaignId)
      if (!campaign) return new Error('the campaign no longer exists')
      const hit = plans.get(key)
      if (hit && hit.until > now && hit.plan.campaign.updatedAt === campaign.updatedAt)
        return { ...hit.plan, campaign }
      try {
        const content =
          m.variant === null
            ? await assertSendable(app, campaign)
            : await variantContent(app, campaign, m.variant)
        const plan: CampaignPlan = {
          ...(await planner({
            clientId: campaign.clientId,
            channel: campaign.channel,
            content,
            sender: campaign.channel === 'email' ? await resolveSender(app, campaign) : null,
            variables: { campaign: { id: campaign.id, name: campaign.name, channel: campaign.channel } },
            bulk: true,
          })),
          campaign,
        }
        plans.set(key, { plan, until: now + PLAN_TTL_MS })
        return plan
      } catch (err) {
        return asError(err)
      }
    },
    // The campaign fails after the batch (afterBatch); until then its messages stay queued.
    unplannable: (_m, _error, now) => ({ kind: 'deferred', at: now }),

    async verdict(m, plan, fresh) {
      return stateVerdict(fresh ? await statuses.fresh(m.campaignId!) : plan.campaign.status)
    },

    // An A/B test's messages also count for their variant.
    tallyKey: (m) => (m.variant === null ? m.campaignId : `${m.campaignId}${VARIANT_MARK}${m.variant}`),
    tally: async (key, deltas) => {
      const [campaignId, variant] = key.split(VARIANT_MARK) as [string, string | undefined]
      await bumpCampaign(app.db, campaignId, deltas, variant === undefined ? null : Number(variant))
    },

    async afterBatch({ plans: used, lastFailure }) {
      for (const [key, plan] of used) {
        const campaignId = key.split(VARIANT_MARK, 1)[0]!
        if (plan instanceof Error) {
          plans.delete(key)
          await failCampaign(app, campaignId, `cannot send: ${plan.message}`)
          continue
        }
        const t = await outbox.campaignTotals(campaignId)
        if (t && t.status === SENDING && t.sent === 0 && t.failed >= REFUSED_EVERYTHING)
          await failCampaign(
            app,
            campaignId,
            `the provider refused every message so far (${t.failed}); last error: ${lastFailure ?? 'unknown'}`,
          )
      }
    },

    async afterPass() {
      let completed = false
      for (const id of sending) if (await completeIfDone(app, id)) completed = true
      return completed
    },
  }
}
