import type { Ctx } from '../../context'
import type { RenderDraftInput } from './inputs'
import { previewWith } from './preview'
import { checkContent, findTemplateRow } from './records'

// The portal editor's live preview: unsaved text rendered exactly as templates.preview renders
// the stored version (same engines, variables, missing variables, SMS info), checked by the same
// rules as a save (per-channel fields, Liquid syntax → 422 with line and column per field). It
// carries no version (id, updatedAt), so the render thread compiles it without its cache: a
// keystroke's draft is no template version, and caching it would only evict real versions.

export async function renderDraft(ctx: Ctx, { id, contact_id, channel, ...fields }: RenderDraftInput) {
  const row = await findTemplateRow(ctx, id)
  const content = {
    channel,
    subject: fields.subject ?? null,
    bodyHtml: fields.body_html ?? null,
    bodyText: fields.body_text ?? null,
  }
  checkContent(content)
  return await previewWith(
    ctx,
    { id: row.id, clientId: row.clientId, channel },
    contact_id !== undefined ? { contact_id } : {},
    content,
  )
}
