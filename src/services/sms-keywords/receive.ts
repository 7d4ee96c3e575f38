import { and, desc, eq, inArray, isNotNull } from 'drizzle-orm'
import { verifyTwilioSignature } from '../../channels/twilio'
import type { AppContext } from '../../context'
import { type ContactRow, contacts, messages } from '../../db/schema'
import { inTransaction } from '../../db/transaction'
import { recordConsents } from '../consents/record'
import { normalizePhone } from '../contacts/normalize'
import { findMessage, recordReply } from '../messages/activity'
import { snippetOf } from '../messages/snippet'
import { footerOf } from '../sending-profiles/footer'
import { profileByToken } from '../sending-profiles/records'
import { inboundSmsToken } from '../sending-profiles/twilio-tokens'
import { keywordOf } from './keywords'

// A text someone sent to a client's Twilio number, posted to `/hooks/twilio/sms/{token}`: the
// token names the client (its sending profile's feedback token), X-Twilio-Signature proves Twilio
// sent it. STOP and START change the SMS opt-out of every contact of the client with that number
// (carriers opt out a number, not a person); HELP is answered with the client's help text;
// anything else is stored as a reply to the latest text that number was sent.

export interface InboundSmsRequest {
  /** The URL Twilio requested (the public URL, which its signature covers). */
  url: string
  headers: Headers
  body: string
}

export type InboundSmsOutcome =
  | { ok: false; status: 401 | 404; message: string }
  | {
      ok: true
      /** What Twilio texts back (TwiML <Message>), if anything. */
      reply: string | null
      did: 'opted_out' | 'opted_in' | 'help' | 'reply' | 'ignored'
    }

const MAX_REPLY_TEXT = 16 * 1024

export const defaultHelpText = (company: string | null) =>
  `${company ? `${company}: r` : 'R'}eply STOP to unsubscribe, START to resubscribe.`

async function contactsByPhone(app: AppContext, clientId: string, phone: string): Promise<ContactRow[]> {
  return await app.db
    .select()
    .from(contacts)
    .where(and(eq(contacts.clientId, clientId), eq(contacts.phone, phone)))
    .limit(100)
}

/** Sets the SMS opt-out of these contacts, with a consent row for each that changed. */
async function setSmsOptOut(app: AppContext, people: readonly ContactRow[], optOut: boolean, at: number) {
  const changing = people.filter((c) => c.smsOptOut !== optOut)
  if (changing.length === 0) return
  await app.db
    .update(contacts)
    .set({ smsOptOut: optOut, updatedAt: at })
    .where(
      inArray(
        contacts.id,
        changing.map((c) => c.id),
      ),
    )
  await recordConsents(
    app.db,
    { source: 'sms' },
    changing.map((c) => ({
      clientId: c.clientId,
      contactId: c.id,
      action: optOut ? ('unsubscribed' as const) : ('subscribed' as const),
      at,
    })),
  )
}

/** The latest text sent to any of these contacts: what a reply from their number answers. */
async function latestSmsTo(app: AppContext, people: readonly ContactRow[]) {
  const row = (
    await app.db
      .select({ id: messages.id })
      .from(messages)
      .where(
        and(
          inArray(
            messages.contactId,
            people.map((c) => c.id),
          ),
          eq(messages.channel, 'sms'),
          isNotNull(messages.sentAt),
        ),
      )
      .orderBy(desc(messages.seq))
      .limit(1)
  )[0]
  return row ? await findMessage(app, row.id) : undefined
}

export async function receiveInboundSms(
  app: AppContext,
  token: string,
  req: InboundSmsRequest,
): Promise<InboundSmsOutcome> {
  const row = await profileByToken(app, token)
  if (!row) return { ok: false, status: 404, message: 'No such inbound SMS URL' }
  const params = Object.fromEntries(new URLSearchParams(req.body))
  const authToken = inboundSmsToken(app, row.profile)
  if (!authToken || !verifyTwilioSignature(authToken, req.url, params, req.headers.get('x-twilio-signature')))
    return { ok: false, status: 401, message: 'X-Twilio-Signature does not match this request' }

  const text = params.Body ?? ''
  const keyword = keywordOf(text)
  // HELP is answered whoever asks (carriers require it); it reads and stores nothing.
  if (keyword === 'help') {
    const help = row.profile.sms.help_text ?? defaultHelpText((await footerOf(app.db, row.clientId)).company)
    return { ok: true, reply: help, did: 'help' }
  }
  const phone = normalizePhone(params.From ?? '')
  const people = phone ? await contactsByPhone(app, row.clientId, phone) : []
  if (people.length === 0) return { ok: true, reply: null, did: 'ignored' }
  const at = app.clock.now()
  return await inTransaction(app.sqlite, async (): Promise<InboundSmsOutcome> => {
    if (keyword === 'stop' || keyword === 'start') {
      await setSmsOptOut(app, people, keyword === 'stop', at)
      // Twilio itself answers STOP and START with the carrier's confirmation.
      return { ok: true, reply: null, did: keyword === 'stop' ? 'opted_out' : 'opted_in' }
    }
    const answered = await latestSmsTo(app, people)
    if (!answered) return { ok: true, reply: null, did: 'ignored' }
    await recordReply(
      app,
      answered,
      { from: phone!, subject: null, snippet: snippetOf(text), text: text.slice(0, MAX_REPLY_TEXT) },
      at,
    )
    return { ok: true, reply: null, did: 'reply' }
  })
}
