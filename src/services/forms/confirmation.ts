import { and, eq, inArray, sql } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { outboxOf } from '../../db/outbox'
import { contacts, optInConfirmations } from '../../db/schema'
import { type ConfirmVia, confirmKey, encodeConfirmToken } from '../../lib/confirm-token'
import { newId } from '../../lib/ids'
import { OUTBOX_RULES } from '../campaigns/states'
import { createSuppressionCheck } from '../suppressions/check'

// The double opt-in message: one transactional message through the outbox carrying
// `{{ confirm_url }}`, rendered from the form's template or the built-in one below. At most one
// per contact and form (or list) an hour, so a form cannot be used to flood an inbox.

const RESEND_AFTER_MS = 60 * 60 * 1000

export const BUILT_IN_CONFIRMATION = {
  subject: 'Please confirm your subscription',
  bodyHtml:
    '<p>Please confirm that you want to receive messages from {{ client.footer.company | default: client.name }}.</p><p><a href="{{ confirm_url }}">Confirm my subscription</a></p><p>If you did not ask for this, ignore this message and you will not be subscribed.</p>',
  bodyText:
    'Please confirm that you want to receive messages from {{ client.footer.company | default: client.name }}:\n\n{{ confirm_url }}\n\nIf you did not ask for this, ignore this message and you will not be subscribed.',
}

export interface ConfirmationRequest {
  via: ConfirmVia
  /** The form's id, or the list's. */
  sourceId: string
  clientId: string
  contactId: string
  email: string
  /** The form's own template; null for the built-in message. */
  templateId: string | null
}

export const confirmUrl = (app: AppContext, token: string) =>
  `${app.config.publicUrl.replace(/\/+$/, '')}/f/confirm/${token}`

/**
 * Queues the confirmation unless one went to this contact through the same form or list within
 * the hour; true when queued. In the caller's transaction; the caller wakes the send worker.
 */
export async function queueConfirmation(
  app: AppContext,
  r: ConfirmationRequest,
  now: number,
): Promise<boolean> {
  const stamped = (
    await app.db
      .insert(optInConfirmations)
      .values({ sourceId: r.sourceId, contactId: r.contactId, sentAt: now })
      .onConflictDoUpdate({
        target: [optInConfirmations.sourceId, optInConfirmations.contactId],
        set: { sentAt: now },
        setWhere: sql`${optInConfirmations.sentAt} <= ${now - RESEND_AFTER_MS}`,
      })
      .returning({ at: optInConfirmations.sentAt })
  )[0]!
  if (!stamped) return false
  const token = encodeConfirmToken(confirmKey(app.secretKey), {
    via: r.via,
    sourceId: r.sourceId,
    contactId: r.contactId,
    issuedAt: now,
  })
  const outbox = outboxOf(app.store, OUTBOX_RULES)
  const seq = await outbox.queueMessage(newId(), r.clientId, r.contactId, 'email', r.email, now)
  await outbox.storePayload({
    messageSeq: seq,
    templateId: r.templateId,
    subject: r.templateId ? null : BUILT_IN_CONFIRMATION.subject,
    bodyHtml: r.templateId ? null : BUILT_IN_CONFIRMATION.bodyHtml,
    bodyText: r.templateId ? null : BUILT_IN_CONFIRMATION.bodyText,
    senderId: null,
    variables: { confirm_url: confirmUrl(app, token) },
  })
  return true
}

const CHUNK = 500

/**
 * Contacts just added to a list unconfirmed (the API's double opt-in): each one that can be
 * written to is sent the built-in confirmation. In the caller's transaction; returns how many
 * were queued.
 */
export async function askListConfirmations(
  app: AppContext,
  list: { id: string; clientId: string },
  contactIds: readonly string[],
  now: number,
): Promise<number> {
  const suppressed = createSuppressionCheck(app.db)
  let queued = 0
  for (let i = 0; i < contactIds.length; i += CHUNK)
    for (const c of await app.db
      .select({ id: contacts.id, email: contacts.email, status: contacts.status })
      .from(contacts)
      .where(
        and(eq(contacts.clientId, list.clientId), inArray(contacts.id, contactIds.slice(i, i + CHUNK))),
      )) {
      if (c.status !== 'subscribed' || (await suppressed(list.clientId, c.email))) continue
      const request = { via: 'list' as const, sourceId: list.id, clientId: list.clientId, templateId: null }
      if (await queueConfirmation(app, { ...request, contactId: c.id, email: c.email }, now)) queued++
    }
  return queued
}
