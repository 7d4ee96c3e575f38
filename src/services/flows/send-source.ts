import type { AppContext } from '../../context'
import { flowQueue } from '../../db/flow-queue'
import type { FlowKind } from '../../lib/enums'
import { rfcMessageId } from '../../queue/compose'
import { asError, PLAN_TTL_MS, type Planner, type SendPlan } from '../../queue/plan'
import { type MessageSource, SEND, type Verdict } from '../../queue/sources/types'
import { resolveSender } from '../campaigns/sender'
import { sendNodeContent } from './content'

// A flow's messages (source_id set): queued by a send node in the step's transaction, each
// active flow a lane of its own. A paused flow's messages wait; an archived one's are cancelled
// (archiving cancels the queued ones at once). One plan per send node (its content, sender and
// channel), cached a few seconds like a campaign's. An email that continues a thread carries
// In-Reply-To (the run's previous email) and References (all of them): their Message-IDs are
// derived from the outbox ids and the sender's domain, as the earlier emails' own were.

export function createFlowSource(app: AppContext, planner: Planner): MessageSource {
  const q = flowQueue(app.db)
  const plans = new Map<string, { plan: SendPlan; until: number }>()

  async function nodePlan(
    kind: FlowKind,
    flowId: string,
    nodeId: string | null,
    clientId: string,
  ): Promise<SendPlan> {
    const key = `${flowId}:${nodeId}`
    const now = app.clock.now()
    const hit = plans.get(key)
    if (hit && hit.until > now) return hit.plan
    const { flow, content, channel, senderId } = await sendNodeContent(app, kind, flowId, nodeId)
    const plan = await planner({
      clientId,
      channel,
      content,
      sender: channel === 'email' ? await resolveSender(app, { clientId, senderId }) : null,
      variables: { [flow.kind]: { id: flow.id, name: flow.name } },
      bulk: true,
    })
    plans.set(key, { plan, until: now + PLAN_TTL_MS })
    return plan
  }

  const verdictOf = (kind: string | null, status: string | null): Verdict =>
    status === 'active'
      ? SEND
      : status === 'paused'
        ? { kind: 'defer', at: app.clock.now() }
        : { kind: 'cancel', reason: `${kind ?? 'flow'} ${status ?? 'deleted'}` }

  // An email continuing a thread is its own key (its headers, on the node's cached plan). The
  // thread read for its key is kept for its plan, asked right after.
  const read = new Map<number, string[]>()
  const threaded = async (m: { channel: string; seq: number }) => {
    if (m.channel !== 'email') return []
    let thread = read.get(m.seq)
    if (thread === undefined) {
      if (read.size >= 1_000) read.clear()
      thread = await q.threadOf(m.seq)
      read.set(m.seq, thread)
    }
    return thread
  }

  return {
    kind: 'flow',
    owns: (m) => m.sourceId !== null,

    async due(now) {
      let nextAt: number | null = null
      const lanes: string[] = []
      for (const { id, at } of await q.laneDue()) {
        if (at === null) continue
        if (at <= now) lanes.push(id)
        else nextAt = nextAt === null ? at : Math.min(nextAt, at)
      }
      return { lanes, nextAt }
    },
    claim: async (flowId, now, leaseUntil, limit) => await q.claimMessages(flowId, now, leaseUntil, limit),

    planKey: async (m) => ((await threaded(m)).length === 0 ? `${m.sourceId}:${m.sourceStep}` : m.id),
    async plan(m) {
      try {
        const plan = await nodePlan(m.sourceKind!, m.sourceId!, m.sourceStep, m.clientId)
        const thread = plan.channel === 'email' ? await threaded(m) : []
        if (thread.length === 0) return plan
        const ids = thread.map((id) => rfcMessageId(id, plan.idDomain))
        return { ...plan, headers: { 'In-Reply-To': ids.at(-1)!, References: ids.join(' ') } }
      } catch (err) {
        return asError(err)
      }
    },
    unplannable: (_m, error) => ({ kind: 'failed', provider: null, error: `cannot send: ${error.message}` }),

    verdict: async (m, _plan, fresh) => (fresh ? verdictOf(m.sourceKind, await q.status(m.sourceId!)) : SEND),
    tallyKey: () => null,
    tally() {},
  }
}
