import type { AppContext } from '../../context'
import type { Outbox } from '../../db/outbox'
import { asError, type Planner, type SendPlan } from '../../queue/plan'
import { type MessageSource, SEND } from '../../queue/sources/types'
import { resolveSender } from '../campaigns/sender'
import { transactionalContent } from './enqueue'

// The send queue's source (a MessageSource, wired in src/sending.ts) of messages of their own
// (no campaign, no flow): a transactional or test send of one template or
// inline content to one contact. Nothing can pause them; each plans alone (its payload row), one
// that cannot be planned fails, and they bump no counters.

const LANE = 'transactional'

export function createTransactionalSource(app: AppContext, outbox: Outbox, planner: Planner): MessageSource {
  return {
    kind: 'transactional',
    owns: (m) => m.campaignId === null && m.sourceId === null,

    async due(now) {
      const next = await outbox.nextTransactional()
      if (next === null) return { lanes: [], nextAt: null }
      return next <= now ? { lanes: [LANE], nextAt: null } : { lanes: [], nextAt: next }
    },
    claim: async (_lane, now, leaseUntil, limit) => await outbox.claimTransactional(now, leaseUntil, limit),

    planKey: (m) => m.id,
    async plan(m): Promise<SendPlan | Error> {
      const payload = await outbox.payloadOf(m.seq)
      if (!payload) return new Error('the message has no content')
      try {
        const content = await transactionalContent(app, m, payload)
        const channel = content.channel
        return await planner({
          clientId: m.clientId,
          channel,
          content,
          sender:
            channel === 'email'
              ? await resolveSender(app, { clientId: m.clientId, senderId: payload.senderId })
              : null,
          variables: payload.variables ?? {},
          bulk: false,
        })
      } catch (err) {
        return asError(err)
      }
    },
    unplannable: (_m, error) => ({ kind: 'failed', provider: null, error: `cannot send: ${error.message}` }),

    verdict: () => SEND,
    tallyKey: () => null,
    tally() {},
  }
}
