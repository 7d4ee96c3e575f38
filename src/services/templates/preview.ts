import { and, eq } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { clients, contacts } from '../../db/schema'
import { visibleTo } from '../../db/tenant'
import { invalidField } from '../../errors'
import type { TemplateChannel } from '../../lib/enums'
import { parseId } from '../../lib/ids'
import { isPlainObject } from '../../lib/plain-object'
import { smsInfo } from '../../lib/sms'
import { encodePreviewToken } from '../../lib/tracking-token'
import { footerOf } from '../sending-profiles/footer'
import { trackingKeyOf } from '../tracking/resolve'
import type { PreviewInput } from './inputs'
import { findTemplateRow } from './records'
import { PREVIEW_BUDGET_MS, type RenderVariables } from './render'
import { previewRenderer } from './render-pool'
import type { RenderContent } from './render-protocol'
import { clientVariables, contactVariables } from './variables'

type Members = Record<string, unknown>

async function loadContact(ctx: Ctx, clientId: string, contactId: string): Promise<Members> {
  const id = parseId(contactId)
  const row = id
    ? (
        await ctx.db
          .select()
          .from(contacts)
          .where(
            and(
              eq(contacts.id, id),
              eq(contacts.clientId, clientId),
              visibleTo(ctx.actor, contacts.clientId),
            ),
          )
          .limit(1)
      )[0]
    : undefined
  if (!row) throw invalidField('contact_id', "no such contact in the template's client")
  return contactVariables(row)
}

/**
 * A sample contact as template variables: it may be written like a contact's input
 * (`custom_fields`, as in POST /contacts) or like the variables (`custom`); `custom_fields`
 * becomes `custom` (a `custom` member wins per key), and `list_ids` means nothing here.
 */
function sampleContactVariables(sample: Members): Members {
  const { custom_fields, custom, list_ids: _lists, ...rest } = sample
  const fields = isPlainObject(custom_fields) ? custom_fields : {}
  return { ...rest, custom: { ...fields, ...(isPlainObject(custom) ? custom : {}) } }
}

/**
 * Renders a template with a stored contact and/or inline sample data (sample members win,
 * `custom` merges member by member) and reports the variables that printed empty.
 */
export async function previewTemplate(ctx: Ctx, id: string, input: PreviewInput) {
  const row = await findTemplateRow(ctx, id)
  const { updatedAt, channel, subject, bodyHtml, bodyText } = row
  return await previewWith(ctx, row, input, { id: row.id, updatedAt, channel, subject, bodyHtml, bodyText })
}

/**
 * The preview of `content` for the template `row` (its client gives the contacts and the client
 * variables; its id the preview unsubscribe link): the stored version (templates.preview) or an
 * unsaved draft of it (templates.render-draft). It renders on a render thread within the
 * preview budget; a render past its bounds is a 422 naming the member.
 */
export async function previewWith(
  ctx: Ctx,
  row: { id: string; clientId: string; channel: TemplateChannel },
  input: PreviewInput,
  content: RenderContent,
) {
  const base = input.contact_id !== undefined ? await loadContact(ctx, row.clientId, input.contact_id) : {}
  const sample = input.sample ?? {}
  const client = (await ctx.db.select().from(clients).where(eq(clients.id, row.clientId)).limit(1))[0]
  const sampleContact = sampleContactVariables(sample.contact ?? {})
  const variables: RenderVariables = {
    contact: {
      ...base,
      ...sampleContact,
      custom: {
        ...(isPlainObject(base.custom) ? base.custom : {}),
        ...(isPlainObject(sampleContact.custom) ? sampleContact.custom : {}),
      },
    },
    client: {
      ...(client ? clientVariables(client, await footerOf(ctx.db, client.id)) : {}),
      ...sample.client,
    },
    campaign: { ...sample.campaign },
    // A link of its own kind: it opens a page saying this was a preview, and never unsubscribes.
    unsubscribe_url:
      sample.unsubscribe_url ?? `${ctx.config.publicUrl}/u/${encodePreviewToken(trackingKeyOf(ctx), row.id)}`,
    // Likewise: a preview page of the preference centre that shows no one's lists.
    preferences_url: `${ctx.config.publicUrl}/p/${encodePreviewToken(trackingKeyOf(ctx), row.id, 'preview_preferences')}`,
  }
  const r = await previewRenderer().render({
    content,
    variables,
    missing: true,
    budgetMs: PREVIEW_BUDGET_MS,
  })
  if (!r.ok) throw invalidField(r.limit && r.field ? r.field : 'template', r.message)
  const { rendered } = r
  return {
    template_id: row.id,
    client_id: row.clientId,
    channel: row.channel,
    ...rendered,
    missing_variables: r.missing,
    ...(row.channel === 'sms' ? { sms: smsInfo(rendered.body_text ?? '') } : {}),
  }
}
