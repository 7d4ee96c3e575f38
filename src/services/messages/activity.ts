import { eq, sql } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { DIALECT } from '../../db/dialect'
import { outboxOf } from '../../db/outbox'
import { rawRows } from '../../db/raw'
import { addToRollup } from '../../db/rollups'
import { heldRow } from '../../db/row-lock'
import { contacts, type MessageRow, messages, replies } from '../../db/schema'
import { inTransaction } from '../../db/transaction'
import { newId, toPrefixedId } from '../../lib/ids'
import { iso } from '../../lib/time'
import { OUTBOX_RULES } from '../campaigns/states'
import { optOutContact } from '../contacts/unsubscribe'
import { healthAfterBounceOrComplaint } from '../deliverability/health-debounce'
import { recordEvent } from '../events/record'
import { suppress } from '../suppressions/records'
import { bumpCampaign } from './counters'
import { firstClick, firstOpen, storedUserAgent } from './first-hits'
import { flowRefsOf } from './flow-refs'

// What happens to a message after it left: delivery reports, opens, clicks, bounces, replies
// and unsubscribes. Tracking routes, provider callbacks, the simulator and inbound mail all
// call these, so each writes the same message columns, events and campaign counters in one
// transaction. Counters are unique per message (the first open/click/reply counts); repeated
// opens and clicks are counted on the message and make no further event (first-hits.ts).

const pid = (kind: 'message' | 'campaign' | 'contact', id: string | null) =>
  id === null ? null : toPrefixedId(kind, id)

/** The ids every message event carries, in webhook form. */
const idsOf = (m: MessageRow) => ({
  message_id: pid('message', m.id),
  campaign_id: pid('campaign', m.campaignId),
  // A flow's messages name it (campaign_id null); other events keep their documented members.
  ...flowIdsOf(m),
  contact_id: pid('contact', m.contactId),
})

/** `journey_id` or `sequence_id` of a flow's message, in webhook form (nothing for others). */
function flowIdsOf(m: MessageRow) {
  const { journeyId, sequenceId } = flowRefsOf(m)
  if (journeyId !== null) return { journey_id: toPrefixedId('journey', journeyId) }
  if (sequenceId !== null) return { sequence_id: toPrefixedId('sequence', sequenceId) }
  return {}
}

export async function findMessage(app: AppContext, id: string): Promise<MessageRow | undefined> {
  return (await app.db.select().from(messages).where(eq(messages.id, id)).limit(1))[0]
}

const emailOf = async (app: AppContext, m: MessageRow) =>
  (
    await app.db.select({ email: contacts.email }).from(contacts).where(eq(contacts.id, m.contactId)).limit(1)
  )[0]?.email ?? m.to

function refs(m: MessageRow) {
  return {
    clientId: m.clientId,
    contactId: m.contactId,
    messageId: m.id,
    campaignId: m.campaignId,
    ...flowRefsOf(m),
  }
}

const tx = async <T>(app: AppContext, fn: () => T): Promise<T> => await inTransaction(app.sqlite, fn)
/**
 * The message as it is now, read in the caller's transaction and held until it ends: the same
 * report handled by two processes at once (a bounce from a DSN and from the provider, two fetches
 * of the pixel) is then recorded, and counted, once.
 */
async function heldMessage(app: AppContext, id: string): Promise<MessageRow | undefined> {
  return await heldRow(app.store, messages, messages.id, id)
}
/** Message status changes go through the outbox's transitions (one statement, one guard each). */
const outbox = (app: AppContext) => outboxOf(app.store, OUTBOX_RULES)

/** A provider's later report that the next hop accepted a message it had taken. */
export async function recordDelivered(app: AppContext, m: MessageRow, at: number): Promise<void> {
  await tx(app, async () => {
    const cur = await heldMessage(app, m.id)
    if (!cur || !(await outbox(app).delivered(cur.seq, at))) return
    await recordDeliveredEvent(app, cur, at)
    await bumpCampaign(app.db, cur.campaignId, { delivered: 1 }, cur.variant)
    await addToRollup(app.sqlite, cur, at, { delivered: 1 })
  })
}

/** email.delivered for a message the outbox just marked delivered (send or later report). */
export async function recordDeliveredEvent(
  app: AppContext,
  m: MessageRow,
  at: number,
  email?: string,
): Promise<void> {
  await recordEvent(app, {
    ...refs(m),
    type: 'email.delivered',
    occurredAt: at,
    data: await deliveredData(app, m, at, email),
  })
}

export async function deliveredData(app: AppContext, m: MessageRow, at: number, email?: string) {
  return {
    ...idsOf(m),
    email: email ?? (await emailOf(app, m)),
    channel: m.channel,
    delivered_at: iso(at),
  }
}

/** A provider's later report that a message it had taken was not delivered. */
export async function recordFailed(
  app: AppContext,
  m: MessageRow,
  reason: string,
  _at: number,
): Promise<void> {
  await tx(app, async () => {
    const cur = await heldMessage(app, m.id)
    if (!cur || !(await outbox(app).reportedFailed(cur.seq, reason))) return
    await bumpCampaign(app.db, cur.campaignId, { failed: 1 })
  })
}

/**
 * Mail privacy proxies (Apple MPP) fetch every image as the message arrives, with a bare
 * "Mozilla/5.0" user agent (or none). Such opens are recorded, flagged `machine`, and kept out
 * of `opened` and open_rate. Gmail's and Yahoo's image proxies fetch when a person opens.
 */
export function isMachineOpen(userAgent: string | null): boolean {
  const ua = userAgent?.trim() ?? ''
  return ua === '' || ua === 'Mozilla/5.0'
}

/**
 * An open pixel fetch: counted on the message every time; the first of each kind (reader,
 * privacy proxy) is recorded as an event, and the first reader's open counts in stats.
 */
export async function recordOpen(
  app: AppContext,
  m: MessageRow,
  userAgent: string | null,
  at: number,
): Promise<void> {
  await tx(app, async () => {
    const cur = await heldMessage(app, m.id)
    if (!cur) return
    const machine = isMachineOpen(userAgent)
    if (await firstOpen(app, cur.seq, machine))
      await recordEvent(app, {
        ...refs(cur),
        type: 'email.opened',
        occurredAt: at,
        data: {
          ...idsOf(cur),
          email: await emailOf(app, cur),
          opened_at: iso(at),
          user_agent: storedUserAgent(userAgent),
          machine,
        },
      })
    if (machine) {
      if (cur.machineOpenedAt === null) {
        await app.db.update(messages).set({ machineOpenedAt: at }).where(eq(messages.id, cur.id))
        await bumpCampaign(app.db, cur.campaignId, { machine_opened: 1 })
        await addToRollup(app.sqlite, cur, at, { machine_opened: 1 })
      }
      return
    }
    if (cur.openedAt === null) {
      await app.db.update(messages).set({ openedAt: at }).where(eq(messages.id, cur.id))
      await bumpCampaign(app.db, cur.campaignId, { opened: 1 }, cur.variant)
      await addToRollup(app.sqlite, cur, at, { opened: 1 })
    }
  })
}

/**
 * A tracked click: counted on the message every time; the first click of each link (up to a
 * bound) is recorded as an event. It also counts as an open: the reader saw the message even if
 * images were blocked.
 */
export async function recordClick(
  app: AppContext,
  m: MessageRow,
  url: string,
  userAgent: string | null,
  at: number,
) {
  await tx(app, async () => {
    const cur = await heldMessage(app, m.id)
    if (!cur) return
    if (await firstClick(app, cur.seq, url))
      await recordEvent(app, {
        ...refs(cur),
        type: 'email.clicked',
        occurredAt: at,
        data: {
          ...idsOf(cur),
          email: await emailOf(app, cur),
          url,
          clicked_at: iso(at),
          user_agent: storedUserAgent(userAgent),
        },
      })
    const set: { clickedAt?: number; openedAt?: number } = {}
    if (cur.clickedAt === null) set.clickedAt = at
    if (cur.openedAt === null) set.openedAt = at
    if (Object.keys(set).length === 0) return
    await app.db.update(messages).set(set).where(eq(messages.id, cur.id))
    const firsts = { clicked: set.clickedAt ? 1 : 0, opened: set.openedAt ? 1 : 0 }
    await bumpCampaign(app.db, cur.campaignId, firsts, cur.variant)
    await addToRollup(app.sqlite, cur, at, firsts)
  })
}

export interface Bounce {
  type: 'hard' | 'soft'
  statusCode: string | null
  diagnostic: string | null
}

/** A bounce; a hard one suppresses the address and marks the contact bounced. False when nothing changed. */
export async function recordBounce(
  app: AppContext,
  m: MessageRow,
  bounce: Bounce,
  at: number,
): Promise<boolean> {
  return await tx(app, async () => {
    const cur = await heldMessage(app, m.id)
    if (!cur) return false
    // One bounce per message, except that a hard bounce after a soft one (a "delayed" DSN, then
    // "failed") is still recorded: it is the one that suppresses the address.
    if (cur.bouncedAt !== null && (bounce.type === 'soft' || (await hadHardBounce(app, cur)))) return false
    const email = await emailOf(app, cur)
    await outbox(app).bounced(cur.seq, at)
    await recordEvent(app, {
      ...refs(cur),
      type: 'email.bounced',
      occurredAt: at,
      data: {
        ...idsOf(cur),
        email,
        bounce_type: bounce.type,
        status_code: bounce.statusCode,
        diagnostic: bounce.diagnostic,
        bounced_at: iso(at),
      },
    })
    if (cur.bouncedAt === null) {
      await bumpCampaign(app.db, cur.campaignId, { bounced: 1 })
      await addToRollup(app.sqlite, cur, at, { bounced: 1 })
      await healthAfterBounceOrComplaint(app, cur.clientId, at)
    }
    if (bounce.type === 'hard') {
      await suppress(app.db, cur.clientId, email, 'hard_bounce', bounce.diagnostic, at)
      await app.db
        .update(contacts)
        .set({ status: 'bounced', updatedAt: at })
        .where(eq(contacts.id, cur.contactId))
    }
    return true
  })
}

/**
 * Whether the message's hard bounce is recorded. Asked through its contact's events (the
 * message's events carry its contact, and keep it when the contact is erased): events has no
 * index on message_id, and this ran through every event of every client.
 */
const hadHardBounce = async (app: AppContext, m: Pick<MessageRow, 'id' | 'contactId'>) =>
  DIALECT === 'postgres'
    ? (
        await rawRows<{ one: number }>(
          app.db,
          sql`SELECT 1 AS one FROM events WHERE contact_id = ${m.contactId} AND type = 'email.bounced' AND message_id = ${m.id}
              AND data->>'bounce_type' = 'hard' LIMIT 1`,
        )
      ).length > 0
    : (await app.sqlite
        .query<{ one: number }, [string, string]>(
          "SELECT 1 AS one FROM events WHERE contact_id = ?2 AND type = 'email.bounced' AND message_id = ?1 AND json_extract(data, '$.bounce_type') = 'hard' LIMIT 1",
        )
        .get(m.id, m.contactId)) !== null

/**
 * A complaint (ARF feedback report): suppress, mark the contact complained and fire the complaint
 * hook. The first about a message counts in the complaint rate, which may raise an alert or
 * pause the client's campaigns.
 */
export async function recordComplaint(app: AppContext, m: MessageRow, at: number): Promise<void> {
  await tx(app, async () => {
    const cur = await heldMessage(app, m.id)
    if (!cur) return
    if (cur.complainedAt === null) {
      await app.db.update(messages).set({ complainedAt: at }).where(eq(messages.id, cur.id))
      await addToRollup(app.sqlite, cur, at, { complained: 1 })
      await healthAfterBounceOrComplaint(app, cur.clientId, at)
    }
    await suppress(
      app.db,
      cur.clientId,
      await emailOf(app, cur),
      'complaint',
      'spam complaint (ARF report)',
      at,
    )
    await app.hooks.complaint.trigger({
      clientId: cur.clientId,
      contactId: cur.contactId,
      messageId: cur.id,
      at,
    })
    await app.db
      .update(contacts)
      .set({ status: 'complained', updatedAt: at })
      .where(eq(contacts.id, cur.contactId))
  })
}

export interface InboundReply {
  from: string
  subject: string | null
  snippet: string
  text: string | null
}

/** Stores a reply, records reply.received and fires the reply hook; returns the reply id. */
export async function recordReply(
  app: AppContext,
  m: MessageRow,
  reply: InboundReply,
  at: number,
): Promise<string> {
  return await tx(app, async () => {
    const id = newId()
    await app.db.insert(replies).values({
      id,
      clientId: m.clientId,
      messageId: m.id,
      campaignId: m.campaignId,
      ...flowRefsOf(m),
      contactId: m.contactId,
      fromAddress: reply.from,
      subject: reply.subject,
      snippet: reply.snippet,
      bodyText: reply.text,
      receivedAt: at,
    })
    await recordEvent(app, {
      ...refs(m),
      type: 'reply.received',
      occurredAt: at,
      data: {
        reply_id: toPrefixedId('reply', id),
        ...idsOf(m),
        from: reply.from,
        subject: reply.subject,
        snippet: reply.snippet,
        received_at: iso(at),
      },
    })
    await app.hooks.reply.trigger({ replyId: id, ...refs(m), at })
    const cur = await heldMessage(app, m.id)
    if (cur && cur.repliedAt === null) {
      await app.db.update(messages).set({ repliedAt: at }).where(eq(messages.id, m.id))
      await bumpCampaign(app.db, m.campaignId, { replied: 1 })
      await addToRollup(app.sqlite, cur, at, { replied: 1 })
    }
    return id
  })
}

/**
 * Unsubscribe through a message's link or header: effective at once, attributed to the message
 * and its campaign, the address suppressed. Repeating it changes nothing.
 */
export async function unsubscribeViaMessage(
  app: AppContext,
  m: MessageRow,
  source: string,
  at: number,
): Promise<boolean> {
  return await tx(app, async () => {
    const contact = (await app.db.select().from(contacts).where(eq(contacts.id, m.contactId)).limit(1))[0]
    if (!contact) {
      await suppress(app.db, m.clientId, m.to, 'unsubscribe', `unsubscribed (${source})`, at)
      return false
    }
    const changed = await optOutContact(app, contact, {
      source,
      consent: { source: 'unsubscribe_link' },
      at,
      refs: refs(m),
      data: { campaign_id: pid('campaign', m.campaignId), ...flowIdsOf(m), message_id: pid('message', m.id) },
    })
    if (!changed) return false
    // The message's first unsubscribe is the one analytics counts (once per message).
    const cur = await heldMessage(app, m.id)
    if (cur && cur.unsubscribedAt === null) {
      await app.db.update(messages).set({ unsubscribedAt: at }).where(eq(messages.id, m.id))
      await addToRollup(app.sqlite, cur, at, { unsubscribed: 1 })
    }
    await bumpCampaign(app.db, m.campaignId, { unsubscribed: 1 })
    return true
  })
}
