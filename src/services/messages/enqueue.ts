import { and, eq } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { outboxOf } from '../../db/outbox'
import { contacts, type MessagePayloadRow, type MessageRow, senders, templates } from '../../db/schema'
import { inTransaction } from '../../db/transaction'
import { type FieldError, invalidField, validationFailed } from '../../errors'
import type { CampaignChannel } from '../../lib/enums'
import { newId } from '../../lib/ids'
import { assertInlineParses } from '../campaigns/content'
import { resolveSender } from '../campaigns/sender'
import { OUTBOX_RULES } from '../campaigns/states'
import type { RenderableTemplate } from '../templates/render'
import { findMessage } from './activity'

// A message outside any campaign: one template (or inline content) to one contact, a
// transactional or test send. It is a row in the outbox like any other (campaign_id null), so
// the send worker claims, checks, renders, sends, retries and records it the same way.

export interface TransactionalMessage {
  clientId: string
  contactId: string
  /** Default: the template's channel, else email. */
  channel?: CampaignChannel
  templateId?: string | null
  /** Inline content (or, with a template, a subject that overrides the template's). */
  subject?: string | null
  bodyHtml?: string | null
  bodyText?: string | null
  senderId?: string | null
  /** Extra Liquid variables, beside contact and client. */
  variables?: Record<string, unknown> | null
}

/** Queues the message (sent at once by the worker); 422 when it could never be sent. */
export async function enqueueMessage(app: AppContext, input: TransactionalMessage): Promise<MessageRow> {
  const contact = (
    await app.db
      .select()
      .from(contacts)
      .where(and(eq(contacts.id, input.contactId), eq(contacts.clientId, input.clientId)))
      .limit(1)
  )[0]
  // A body reference the caller cannot see is invalid input (422), not a missing route (404).
  if (!contact) throw invalidField('contact_id', 'no such contact in this client')
  const template = input.templateId
    ? (
        await app.db
          .select()
          .from(templates)
          .where(and(eq(templates.id, input.templateId), eq(templates.clientId, input.clientId)))
          .limit(1)
      )[0]
    : null
  if (input.templateId && !template) throw invalidField('template_id', 'no such template in this client')
  // Whatever the channel: another client's sender is never stored with a message of this one.
  if (
    input.senderId &&
    !(
      await app.db
        .select({ id: senders.id })
        .from(senders)
        .where(and(eq(senders.id, input.senderId), eq(senders.clientId, input.clientId)))
        .limit(1)
    )[0]
  )
    throw invalidField('sender_id', 'no such sender in this client')
  const channel = input.channel ?? template?.channel ?? 'email'
  if (template && template.channel !== channel)
    throw invalidField('template_id', `the template is for ${template.channel}, not ${channel}`)
  if (!template)
    assertInlineParses({ subject: input.subject, body_html: input.bodyHtml, body_text: input.bodyText })
  const content = {
    subject: input.subject || template?.subject || null,
    bodyHtml: template ? template.bodyHtml : (input.bodyHtml ?? null),
    bodyText: template ? template.bodyText : (input.bodyText ?? null),
  }
  const errors: FieldError[] = []
  if (channel === 'email') {
    if (!content.subject) errors.push({ field: 'subject', message: 'an email needs a subject' })
    if (!content.bodyHtml && !content.bodyText)
      errors.push({ field: 'body_html', message: 'an email needs body_html or body_text' })
  } else if (!content.bodyText)
    errors.push({ field: 'body_text', message: `a ${channel} message needs body_text` })
  if (errors.length > 0) throw validationFailed(errors)
  if (channel === 'email')
    await resolveSender(app, { clientId: input.clientId, senderId: input.senderId ?? null })

  const outbox = outboxOf(app.store, OUTBOX_RULES)
  const id = newId()
  const now = app.clock.now()
  await inTransaction(app.sqlite, async () => {
    const to = channel === 'email' ? contact.email : (contact.phone ?? '')
    const seq = await outbox.queueMessage(id, input.clientId, contact.id, channel, to, now)
    await outbox.storePayload({
      messageSeq: seq,
      templateId: template?.id ?? null,
      subject: template ? input.subject || null : content.subject,
      bodyHtml: template ? null : content.bodyHtml,
      bodyText: template ? null : content.bodyText,
      senderId: input.senderId ?? null,
      variables: input.variables ?? null,
    })
  })
  // Read before the wake: woken, the send worker may claim it before a later read answers.
  const queued = (await findMessage(app, id))!
  app.workers.wake('send')
  return queued
}

/** What a queued transactional message renders: its template (now), or its inline content. */
export async function transactionalContent(
  app: AppContext,
  m: MessageRow,
  p: MessagePayloadRow,
): Promise<RenderableTemplate> {
  const channel = m.channel as CampaignChannel
  if (p.templateId) {
    const t = (
      await app.db
        .select()
        .from(templates)
        .where(and(eq(templates.id, p.templateId), eq(templates.clientId, m.clientId)))
        .limit(1)
    )[0]
    if (!t) throw invalidField('template_id', 'the template no longer exists')
    if (!p.subject) return t
    return { ...t, id: `${t.id}/${m.id}`, subject: p.subject }
  }
  // Inline content is keyed by what it says, not by the message: the same text sent to many
  // (a double opt-in confirmation, an app's receipt) is parsed once and then rendered from cache.
  return {
    id: `inline/${Bun.hash.wyhash(`${channel}\u0000${p.subject ?? ''}\u0000${p.bodyHtml ?? ''}\u0000${p.bodyText ?? ''}`).toString(36)}`,
    updatedAt: 0,
    channel,
    subject: p.subject,
    bodyHtml: p.bodyHtml,
    bodyText: p.bodyText,
  }
}
