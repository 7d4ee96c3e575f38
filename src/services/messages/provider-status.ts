import { eq } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { messages } from '../../db/schema'
import { recordDelivered, recordFailed } from './activity'

export type ProviderStatus = 'delivered' | 'failed' | 'sent' | 'queued' | 'other'

/**
 * A provider's delivery report for a message it took (a Twilio status callback): delivered or
 * failed are recorded like real traffic; intermediate states change nothing. Returns whether the
 * provider id named one of our messages.
 */
export function applyProviderStatus(
  app: AppContext,
  provider: string,
  providerMessageId: string,
  status: ProviderStatus,
  error: string | null,
): boolean {
  const m = app.db.select().from(messages).where(eq(messages.providerMessageId, providerMessageId)).get()
  if (!m || m.provider !== provider) return false
  const at = app.clock.now()
  if (status === 'delivered') recordDelivered(app, m, at)
  else if (status === 'failed') recordFailed(app, m, error ?? 'the provider reported a failure', at)
  return true
}
