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
    <A extends unknown[]>(
      fn: (m: NonNullable<Awaited<ReturnType<typeof findMessage>>>, ...args: A) => Promise<void>,
    ) =>
    async (outboxId: string, ...args: A) => {
      const m = await findMessage(app, outboxId)
      if (!m) return // erased since (GDPR) or deleted with its campaign
      try {
        await fn(m, ...args)
      } catch (err) {
        app.log.error('recording provider feedback failed', { message_id: outboxId, error: String(err) })
      }
    }
  return {
    messageOf: async (provider, providerMessageId) =>
      await messageByProviderId(app, provider, providerMessageId),
    now: () => app.clock.now(),
    delivered: on(async (m, at: number) => await recordDelivered(app, m, at)),
    failed: on(async (m, reason: string, at: number) => await recordFailed(app, m, reason, at)),
    opened: on(async (m, ua: string | null, at: number) => await recordOpen(app, m, ua, at)),
    clicked: on(
      async (m, url: string, ua: string | null, at: number) => await recordClick(app, m, url, ua, at),
    ),
    bounced: on(async (m, bounce, at: number) => {
      await recordBounce(app, m, bounce, at)
    }),
    replied: on(async (m, reply, at: number) => {
      await recordReply(
        app,
        m,
        { from: reply.from, subject: reply.subject, snippet: snippetOf(reply.text), text: reply.text },
        at,
      )
    }),
  }
}
