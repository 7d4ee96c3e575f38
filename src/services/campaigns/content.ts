import { eq } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { type CampaignRow, templates } from '../../db/schema'
import { type FieldError, invalidField, validationFailed } from '../../errors'
import { htmlEngine, textEngine } from '../templates/engine'
import type { RenderableTemplate } from '../templates/render'
import { assertParses } from '../templates/syntax'

/**
 * What a campaign renders: its template (the campaign's own subject, when set, wins over the
 * template's), or its inline subject and bodies. The id and version key the render cache.
 */
export function campaignContent(app: AppContext, c: CampaignRow): RenderableTemplate {
  if (c.templateId) {
    const t = app.db.select().from(templates).where(eq(templates.id, c.templateId)).get()
    if (!t) throw invalidField('template_id', 'the template no longer exists')
    if (!c.subject) return t
    return { ...t, id: `${t.id}/${c.id}`, updatedAt: Math.max(t.updatedAt, c.updatedAt), subject: c.subject }
  }
  return {
    id: c.id,
    updatedAt: c.updatedAt,
    channel: c.channel,
    subject: c.subject,
    bodyHtml: c.bodyHtml,
    bodyText: c.bodyText,
  }
}

/** A campaign can send when its content has what its channel needs (422 naming what is missing). */
export function assertSendable(app: AppContext, c: CampaignRow): RenderableTemplate {
  const errors: FieldError[] = []
  if (!c.listId && !c.segmentId)
    errors.push({ field: 'list_id', message: 'a campaign needs list_id or segment_id to launch' })
  const content = campaignContent(app, c)
  const where = c.templateId ? 'template_id' : 'body_text'
  if (c.channel === 'email') {
    if (!content.subject) errors.push({ field: 'subject', message: 'an email campaign needs a subject' })
    if (!content.bodyHtml && !content.bodyText)
      errors.push({
        field: c.templateId ? 'template_id' : 'body_html',
        message: 'an email campaign needs body_html or body_text',
      })
  } else if (!content.bodyText)
    errors.push({ field: where, message: `a ${c.channel} campaign needs body_text` })
  if (errors.length > 0) throw validationFailed(errors)
  return content
}

/** Inline Liquid must parse (422 with line and column), as templates must. */
export function assertInlineParses(input: {
  subject?: string | null
  body_html?: string | null
  body_text?: string | null
}): void {
  assertParses([
    { engine: textEngine, field: 'subject', source: input.subject },
    { engine: htmlEngine, field: 'body_html', source: input.body_html },
    { engine: textEngine, field: 'body_text', source: input.body_text },
  ])
}
