import { and, eq } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { type PageRequest, paginate } from '../../db/paginate'
import { templates } from '../../db/schema'
import { listFilter, ownerForCreate, visibleTo } from '../../db/tenant'
import { type FieldError, notFound, validationFailed } from '../../errors'
import type { TemplateChannel } from '../../lib/enums'
import { newId } from '../../lib/ids'
import { htmlEngine, textEngine } from './engine'
import type { TemplateInput } from './inputs'
import { presentTemplate } from './present'
import { assertParses } from './syntax'
import { assertTemplateUnused } from './usage'

export interface Content {
  channel: TemplateChannel
  subject: string | null
  bodyHtml: string | null
  bodyText: string | null
}

/**
 * Per-channel rules, then Liquid syntax. Only email has a subject and an HTML body; SMS,
 * voice (the text-to-speech script), WhatsApp and RCS carry body_text alone.
 */
export function checkContent(c: Content) {
  if (c.channel !== 'email') {
    const errors: FieldError[] = []
    if (c.subject !== null)
      errors.push({
        field: 'subject',
        message: `${c.channel} templates have no subject (omit it, or set it to null)`,
      })
    if (c.bodyHtml !== null)
      errors.push({
        field: 'body_html',
        message: `${c.channel} templates are plain text: put the message in body_text (and omit body_html, or set it to null)`,
      })
    if (errors.length > 0) throw validationFailed(errors)
  }
  assertParses([
    { engine: textEngine, field: 'subject', source: c.subject },
    { engine: htmlEngine, field: 'body_html', source: c.bodyHtml },
    { engine: textEngine, field: 'body_text', source: c.bodyText },
  ])
}

export async function findTemplateRow(ctx: Ctx, id: string) {
  const row = (
    await ctx.db
      .select()
      .from(templates)
      .where(and(eq(templates.id, id), visibleTo(ctx.actor, templates.clientId)))
      .limit(1)
  )[0]
  if (!row) throw notFound('Template')
  return row
}

export async function createTemplate(ctx: Ctx, clientIdParam: string | undefined, input: TemplateInput) {
  const clientId = await ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  const content: Content = {
    channel: input.channel ?? 'email',
    subject: input.subject ?? null,
    bodyHtml: input.body_html ?? null,
    bodyText: input.body_text ?? null,
  }
  checkContent(content)
  const now = ctx.clock.now()
  const row = (
    await ctx.db
      .insert(templates)
      .values({ id: newId(), clientId, name: input.name, ...content, createdAt: now, updatedAt: now })
      .returning()
  )[0]!
  return presentTemplate(row)
}

export const getTemplate = async (ctx: Ctx, id: string) => presentTemplate(await findTemplateRow(ctx, id))

export async function listTemplates(ctx: Ctx, page: PageRequest & { client_id?: string }) {
  const where = listFilter(ctx.actor, templates.clientId, page.client_id)
  return await paginate(ctx.db, ctx.secretKey, templates, templates.id, where, page, presentTemplate)
}

const pick = <T>(value: T | undefined, current: T) => (value === undefined ? current : value)

export async function updateTemplate(ctx: Ctx, id: string, input: Partial<TemplateInput>) {
  const current = await findTemplateRow(ctx, id)
  const content: Content = {
    channel: input.channel ?? current.channel,
    subject: pick(input.subject, current.subject),
    bodyHtml: pick(input.body_html, current.bodyHtml),
    bodyText: pick(input.body_text, current.bodyText),
  }
  checkContent(content)
  // updated_at is also the render cache's version: it must move on every change.
  const updatedAt = Math.max(ctx.clock.now(), current.updatedAt + 1)
  const row = (
    await ctx.db
      .update(templates)
      .set({ name: input.name ?? current.name, ...content, updatedAt })
      .where(eq(templates.id, current.id))
      .returning()
  )[0]!
  return presentTemplate(row)
}

export async function deleteTemplate(ctx: Ctx, id: string) {
  const row = await findTemplateRow(ctx, id)
  // Checked in the verb's transaction, so no campaign or flow can take the template up between
  // the check and the delete.
  await assertTemplateUnused(ctx, row)
  await ctx.db.delete(templates).where(eq(templates.id, row.id))
  return { id: row.id, client_id: row.clientId, deleted: true as const }
}
