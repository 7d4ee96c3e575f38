import { eq } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { messages } from '../../db/schema'

/**
 * The outbox id of the message a provider took under its own id (a Twilio SID), or null when
 * the id is not one of ours or was another provider's. Providers parse their own reports
 * (src/channels) and record them through the feedback, which finds the message here.
 */
export async function messageByProviderId(
  app: AppContext,
  provider: string,
  providerMessageId: string,
): Promise<string | null> {
  const m = (
    await app.db
      .select({ id: messages.id, provider: messages.provider })
      .from(messages)
      .where(eq(messages.providerMessageId, providerMessageId))
      .limit(1)
  )[0]
  return m && m.provider === provider ? m.id : null
}
