import type { AppContext } from '../../context'
import { sequenceQueue } from '../../db/sequence-queue'
import { resolveSender } from '../../services/campaigns/sender'
import { sequenceStepContent } from '../../services/sequences/content'
import { rfcMessageId } from '../compose'
import { asError, PLAN_TTL_MS, type Planner, type SendPlan } from '../plan'
import { type MessageSource, SEND, type Verdict } from './types'

// A sequence's messages (sequence_id set, campaign_id null): queued by the executor in the
// step's transaction, each active sequence a lane of its own. A paused sequence's messages
// wait; an archived one's are cancelled (archiving cancels the queued ones at once). An email
// that continues a thread carries In-Reply-To (the run's previous email) and References (all
// of them): their Message-IDs are derived from the outbox ids and the sender's domain, as the
// earlier emails' own were: such a message gets its step's plan with those headers added.

export function createSequenceSource(app: AppContext, planner: Planner): MessageSource {
  const q = sequenceQueue(app.sqlite)
  const plans = new Map<string, { plan: SendPlan; until: number }>()

  /** A step's content, sender and channel, cached a few seconds like a campaign's. */
  function stepPlan(sequenceId: string, step: number, clientId: string): SendPlan {
    const key = `${sequenceId}:${step}`
    const now = app.clock.now()
    const hit = plans.get(key)
    if (hit && hit.until > now) return hit.plan
    const { sequence, content, channel } = sequenceStepContent(app, sequenceId, step)
    const plan = planner({
      clientId,
      channel,
      content,
      sender: channel === 'email' ? resolveSender(app, { clientId, senderId: sequence.senderId }) : null,
      variables: { sequence: { id: sequence.id, name: sequence.name } },
      bulk: true,
    })
    plans.set(key, { plan, until: now + PLAN_TTL_MS })
    return plan
  }

  const verdictOf = (status: string | null): Verdict =>
    status === 'active'
      ? SEND
      : status === 'paused'
        ? { kind: 'defer', at: app.clock.now() }
        : { kind: 'cancel', reason: `sequence ${status ?? 'deleted'}` }

  return {
    kind: 'sequence',
    owns: (m) => m.sequenceId !== null,

    due(now) {
      let nextAt: number | null = null
      const lanes: string[] = []
      for (const { id, at } of q.laneDue()) {
        if (at === null) continue
        if (at <= now) lanes.push(id)
        else nextAt = nextAt === null ? at : Math.min(nextAt, at)
      }
      return { lanes, nextAt }
    },
    claim: (sequenceId, now, leaseUntil, limit) => q.claimMessages(sequenceId, now, leaseUntil, limit),

    // A run's first email (and every sms) shares its step's plan; an email that continues a
    // thread is its own key (its headers), built on the step's cached plan.
    planKey(m) {
      const at = q.stepOf(m.seq)
      return at && (m.channel !== 'email' || at.thread.length === 0) ? `${m.sequenceId}:${at.step}` : m.id
    },
    plan(m) {
      try {
        const at = q.stepOf(m.seq)
        if (!at) return new Error('the message has no sequence step')
        const plan = stepPlan(m.sequenceId!, at.step, m.clientId)
        if (plan.channel !== 'email' || at.thread.length === 0) return plan
        const ids = at.thread.map((id) => rfcMessageId(id, plan.idDomain))
        return { ...plan, headers: { 'In-Reply-To': ids.at(-1)!, References: ids.join(' ') } }
      } catch (err) {
        return asError(err)
      }
    },
    unplannable: (_m, error) => ({ kind: 'failed', provider: null, error: `cannot send: ${error.message}` }),

    verdict: (m, _plan, fresh) => (fresh ? verdictOf(q.status(m.sequenceId!)) : SEND),
    tallyKey: () => null,
    tally() {},
  }
}
