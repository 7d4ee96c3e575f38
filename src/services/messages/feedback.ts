import type { ChannelFeedback } from '../../channels/types'
import type { AppContext } from '../../context'
import {
  findMessage,
  recordBounce,
  recordClick,
  recordDelivered,
  recordFailed,
  recordOpen,
  recordReply,
} from './activity'
import { messageByProviderId } from './provider-status'
import { snippetOf } from './snippet'

/** What providers report after a send (simulated traffic, status callbacks), recorded as real traffic is. */
export function createFeedback(app: AppContext): ChannelFeedback {
  const on =
    <A extends unknown[]>(fn: (m: NonNullable<ReturnType<typeof findMessage>>, ...args: A) => void) =>
    (outboxId: string, ...args: A) => {
      const m = findMessage(app, outboxId)
      if (!m) return // erased since (GDPR) or deleted with its campaign
      try {
        fn(m, ...args)
      } catch (err) {
        app.log.error('recording provider feedback failed', { message_id: outboxId, error: String(err) })
      }
    }
  return {
    messageOf: (provider, providerMessageId) => messageByProviderId(app, provider, providerMessageId),
    now: () => app.clock.now(),
    delivered: on((m, at: number) => recordDelivered(app, m, at)),
    failed: on((m, reason: string, at: number) => recordFailed(app, m, reason, at)),
    opened: on((m, ua: string | null, at: number) => recordOpen(app, m, ua, at)),
    clicked: on((m, url: string, ua: string | null, at: number) => recordClick(app, m, url, ua, at)),
    bounced: on((m, bounce, at: number) => recordBounce(app, m, bounce, at)),
    replied: on((m, reply, at: number) => {
      recordReply(
        app,
        m,
        { from: reply.from, subject: reply.subject, snippet: snippetOf(reply.text), text: reply.text },
        at,
      )
    }),
  }
}
