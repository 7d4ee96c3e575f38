import { and, asc, eq } from 'drizzle-orm'
import { channelCapabilities } from '../../channels/registry'
import type { AppContext } from '../../context'
import { type SenderRow, senders } from '../../db/schema'
import { invalidField, invalidState } from '../../errors'
import type { CampaignStatus } from '../../lib/enums'
import { presentSender, verifiedDomainsFor } from '../senders/present'
import { profileRow } from '../sending-profiles/records'

export interface ResolvedSender {
  fromEmail: string
  fromName: string | null
  replyTo: string | null
}

/**
 * Capture and simulator reach no real inbox, so they may send from unverified addresses. The
 * client's own email account decides when it has one, else the instance's provider.
 */
export async function sendsForReal(app: AppContext, clientId: string): Promise<boolean> {
  const own = (await profileRow(app, clientId))?.profile.email.provider
  const emailProvider = own && own !== 'inherit' ? own : app.config.emailProvider
  return channelCapabilities({ ...app.config, emailProvider }, 'email').needsVerifiedSender
}

/** Who sends: a campaign (its status names the 409), or a message of its own. */
export interface SenderOwner {
  clientId: string
  senderId: string | null
  status?: CampaignStatus
}

const asSender = (s: SenderRow): ResolvedSender => ({
  fromEmail: s.fromEmail,
  fromName: s.fromName,
  replyTo: s.replyTo,
})

/**
 * The From identity of an email campaign (or message): its sender_id, else the client's oldest
 * verified sender. Real sending needs a verified one (a campaign: 409 INVALID_STATE saying why;
 * a message: 422 on sender_id); capture mode takes any sender, or the instance's default From
 * (HERALD_DEFAULT_FROM, or no-reply@ the public host when it is a domain name).
 * A sender_id is looked up within the owner's client only: another client's sender (a row
 * stored before references were checked) is no sender at all, never a From to borrow.
 */
export async function resolveSender(app: AppContext, c: SenderOwner): Promise<ResolvedSender> {
  const rows = c.senderId
    ? await app.db
        .select()
        .from(senders)
        .where(and(eq(senders.id, c.senderId), eq(senders.clientId, c.clientId)))
    : await app.db.select().from(senders).where(eq(senders.clientId, c.clientId)).orderBy(asc(senders.id))
  if (c.senderId && rows.length === 0) throw invalidField('sender_id', 'no such sender in this client')
  const verified = await verifiedDomainsFor(app.db, rows)
  const usable = rows.find((r) => presentSender(r, verified).verified)
  if (usable) return asSender(usable)
  if (!(await sendsForReal(app, c.clientId))) {
    const any = rows[0]
    if (any) return asSender(any)
    return { fromEmail: app.config.defaultFrom, fromName: null, replyTo: null }
  }
  const why = c.senderId
    ? `the sender ${rows[0]!.fromEmail} is not verified: verify its domain (DKIM and SPF) with POST /api/v1/domains/{id}/verify`
    : 'the client has no verified sender: create one with POST /api/v1/senders and verify its domain'
  if (!c.status) throw invalidField('sender_id', why)
  throw invalidState(`The campaign cannot send email: ${why}`, c.status, ['draft', 'scheduled', 'paused'])
}
