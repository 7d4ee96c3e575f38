import { and, eq, inArray } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { feedbackReceipts, type MessageRow, messages } from '../../db/schema'
import { eqUnindexed } from '../../db/tenant'
import { findMessage, recordBounce, recordComplaint, recordDelivered } from '../messages/activity'
import type { EspEvent, EspProvider } from './types'

// A provider's notifications land on the same activity verbs as a DSN or an ARF report, so
// events, suppressions, rollups, alerts and webhooks follow. The verbs count a bounce or a
// delivery once per message; a complaint is taken once per message here, since its verb fires
// the complaint hook every time. A provider repeating itself therefore changes nothing.

const OUR_ID = /^<?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@[^<>\s]+>?$/i

/**
 * The client's message a provider took under one of these ids. The client is only checked
 * (eqUnindexed): in the query as a plain condition, SQLite (which keeps no statistics here)
 * walked the client's whole outbox by client_id instead of the ids' index.
 */
export const messageWithProviderIds = (
  app: Pick<AppContext, 'db'>,
  clientId: string,
  ids: readonly string[],
) =>
  app.db
    .select()
    .from(messages)
    .where(and(inArray(messages.providerMessageId, [...ids]), eqUnindexed(messages.clientId, clientId)))
    .limit(1)

/** The client's email message the event names: by the provider's id, else by our Message-ID. */
export async function messageOfEvent(
  app: AppContext,
  clientId: string,
  e: EspEvent,
): Promise<MessageRow | null> {
  const ids = e.providerIds.filter(Boolean)
  if (ids.length) {
    const byProvider = (await messageWithProviderIds(app, clientId, ids))[0]
    if (byProvider && byProvider.channel === 'email') return byProvider
  }
  const outboxId = OUR_ID.exec(e.rfcMessageId?.trim() ?? '')?.[1]?.toLowerCase()
  const m = outboxId ? await findMessage(app, outboxId) : undefined
  return m && m.clientId === clientId && m.channel === 'email' ? m : null
}

/** Applies what the provider reported; a message Herald does not know (or not this client's) is skipped. */
export async function recordEspEvents(
  app: AppContext,
  clientId: string,
  provider: EspProvider,
  events: readonly EspEvent[],
): Promise<{ recorded: number; ignored: number }> {
  let recorded = 0
  for (const e of events) {
    const m = await messageOfEvent(app, clientId, e)
    if (!m) continue
    recorded++
    if (e.kind === 'bounce' && e.bounce) await recordBounce(app, m, e.bounce, e.at)
    else if (e.kind === 'delivery') await recordDelivered(app, m, e.at)
    else if (e.kind === 'complaint' && m.complainedAt === null) await recordComplaint(app, m, e.at)
  }
  await noteReceived(app, clientId, provider)
  return { recorded, ignored: events.length - recorded }
}

/** The time of the provider's latest authenticated notification for the client (shown with its URL). */
export async function noteReceived(app: AppContext, clientId: string, provider: EspProvider): Promise<void> {
  const at = app.clock.now()
  await app.db
    .insert(feedbackReceipts)
    .values({ clientId, provider, lastReceivedAt: at })
    .onConflictDoUpdate({
      target: [feedbackReceipts.clientId, feedbackReceipts.provider],
      set: { lastReceivedAt: at },
    })
}

/** `{ses, postmark, mailgun, sendgrid}`: when each last posted, or null. */
export async function lastReceived(app: Pick<AppContext, 'db'>, clientId: string) {
  const rows = await app.db.select().from(feedbackReceipts).where(eq(feedbackReceipts.clientId, clientId))
  const at = (p: EspProvider) => rows.find((r) => r.provider === p)?.lastReceivedAt ?? null
  return { ses: at('ses'), postmark: at('postmark'), mailgun: at('mailgun'), sendgrid: at('sendgrid') }
}
