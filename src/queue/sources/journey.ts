import type { AppContext } from '../../context'
import { journeyQueue } from '../../db/journey-queue'
import type { MessageRow } from '../../db/schema'
import { resolveSender } from '../../services/campaigns/sender'
import { journeyNodeContent } from '../../services/journeys/content'
import { asError, PLAN_TTL_MS, type Planner, type SendPlan } from '../plan'
import { type MessageSource, SEND, type Verdict } from './types'

// A journey's messages (journey_id set, campaign_id null): queued by a send node in the step's
// transaction, each active journey a lane of its own. A paused journey's messages wait; an
// archived journey's are cancelled (archiving cancels the queued ones at once). One plan per
// send node (its template, sender and channel), cached a few seconds like a campaign's.

export function createJourneySource(app: AppContext, planner: Planner): MessageSource {
  const q = journeyQueue(app.sqlite)
  const plans = new Map<string, { plan: SendPlan; until: number }>()
  let lanes: string[] = []

  const verdictOf = (status: string | null): Verdict =>
    status === 'active'
      ? SEND
      : status === 'paused'
        ? { kind: 'defer', at: app.clock.now() }
        : { kind: 'cancel', reason: `journey ${status ?? 'deleted'}` }

  return {
    kind: 'journey',
    owns: (m) => m.journeyId !== null,

    due(now) {
      let nextAt: number | null = null
      lanes = []
      for (const { id, at } of q.laneDue()) {
        if (at === null) continue
        if (at <= now) lanes.push(id)
        else nextAt = nextAt === null ? at : Math.min(nextAt, at)
      }
      return { lanes, nextAt }
    },
    claim: (journeyId, now, leaseUntil, limit) => q.claimMessages(journeyId, now, leaseUntil, limit),

    planKey: (m) => `${m.journeyId}:${m.journeyNode}`,
    plan(m) {
      const key = `${m.journeyId}:${m.journeyNode}`
      const now = app.clock.now()
      const hit = plans.get(key)
      if (hit && hit.until > now) return hit.plan
      try {
        const { journey, content, channel, senderId } = journeyNodeContent(app, m.journeyId!, m.journeyNode)
        const plan = planner({
          clientId: m.clientId,
          channel,
          content,
          sender: channel === 'email' ? resolveSender(app, { clientId: m.clientId, senderId }) : null,
          variables: { journey: { id: journey.id, name: journey.name } },
          bulk: true,
        })
        plans.set(key, { plan, until: now + PLAN_TTL_MS })
        return plan
      } catch (err) {
        return asError(err)
      }
    },
    unplannable: (_m: MessageRow, error: Error) => ({
      kind: 'failed',
      provider: null,
      error: `cannot send: ${error.message}`,
    }),

    verdict: (m, _plan, fresh) => (fresh ? verdictOf(q.journeyStatus(m.journeyId!)) : SEND),
    tallyKey: () => null,
    tally() {},
  }
}
