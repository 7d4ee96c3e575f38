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
export async function campaignContent(app: AppContext, c: CampaignRow): Promise<RenderableTemplate> {
  if (c.templateId) {
    const t = (await app.db.select().from(templates).where(eq(templates.id, c.templateId)).limit(1))[0]
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

/**
 * What variant `index` of an A/B campaign renders: the campaign's content with what the variant
 * changes. A variant's template replaces the campaign's content (its subject still wins over the
 * template's); its bodies replace the campaign's bodies; its subject replaces the subject.
 */
export async function variantContent(
  app: AppContext,
  c: CampaignRow,
  index: number,
): Promise<RenderableTemplate> {
  const v = c.variants?.[index]
  if (!v) throw invalidField('variants', `the campaign has no variant ${index}`)
  const id = `${c.id}#${index}`
  if (v.template_id) {
    const t = (await app.db.select().from(templates).where(eq(templates.id, v.template_id)).limit(1))[0]
    if (!t) throw invalidField(`variants[${index}].template_id`, 'the template no longer exists')
    return {
      ...t,
      id,
      updatedAt: Math.max(t.updatedAt, c.updatedAt),
      subject: v.subject || c.subject || t.subject,
    }
  }
  const base = await campaignContent(app, c)
  const bodies = v.body_html || v.body_text
  return {
    id,
    updatedAt: Math.max(base.updatedAt, c.updatedAt),
    channel: c.channel,
    subject: v.subject || base.subject,
    bodyHtml: bodies ? (v.body_html ?? null) : base.bodyHtml,
    bodyText: bodies ? (v.body_text ?? null) : base.bodyText,
  }
}

/**
 * A campaign can send when its content (each variant's, for an A/B test) has what its channel
 * needs: 422 naming what is missing. Answers the campaign's own content.
 */
export async function assertSendable(app: AppContext, c: CampaignRow): Promise<RenderableTemplate> {
  const errors: FieldError[] = []
  if (!c.listId && !c.segmentId)
    errors.push({ field: 'list_id', message: 'a campaign needs list_id or segment_id to launch' })
  if (c.variants && c.abTest)
    for (let i = 0; i < c.variants.length; i++)
      checkContent(c, await variantContent(app, c, i), `variants[${i}].`, errors)
  else checkContent(c, await campaignContent(app, c), '', errors)
  if (errors.length > 0) throw validationFailed(errors)
  return await campaignContent(app, c)
}

function checkContent(c: CampaignRow, content: RenderableTemplate, prefix: string, errors: FieldError[]) {
  const where = c.templateId ? 'template_id' : 'body_text'
  if (c.channel === 'email') {
    if (!content.subject)
      errors.push({ field: `${prefix}subject`, message: 'an email campaign needs a subject' })
    if (!content.bodyHtml && !content.bodyText)
      errors.push({
        field: `${prefix}${c.templateId ? 'template_id' : 'body_html'}`,
        message: 'an email campaign needs body_html or body_text',
      })
  } else if (!content.bodyText)
    errors.push({ field: `${prefix}${where}`, message: `a ${c.channel} campaign needs body_text` })
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
