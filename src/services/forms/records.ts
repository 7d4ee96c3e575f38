import { eq } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { paginate } from '../../db/paginate'
import { type FormRow, forms, optInConfirmations } from '../../db/schema'
import { findVisible, listFilter, ownerForCreate } from '../../db/tenant'
import { type FieldError, notFound, validationFailed } from '../../errors'
import { newId } from '../../lib/ids'
import { checkLists, checkTemplate, checkUrls, normalizeFields } from './check'
import type { FormInput, FormPatch } from './inputs'
import { presentForm } from './present'

export async function findFormRow(ctx: Ctx, id: string): Promise<FormRow> {
  const row = await findVisible(ctx.db, ctx.actor, forms, id)
  if (!row) throw notFound('Form')
  return row
}

/** The members of `input` that reference or shape something, checked and resolved. */
async function resolve(ctx: Ctx, clientId: string, input: FormPatch) {
  const errors: FieldError[] = []
  const out: Partial<FormRow> = {}
  if (input.list_ids !== undefined) out.listIds = await checkLists(ctx.db, clientId, input.list_ids, errors)
  if (input.fields !== undefined) out.fields = normalizeFields(input.fields, errors)
  if (input.confirmation_template_id !== undefined)
    out.confirmationTemplateId =
      input.confirmation_template_id === null
        ? null
        : await checkTemplate(ctx.db, clientId, input.confirmation_template_id, errors)
  checkUrls(input, errors)
  if (errors.length) throw validationFailed(errors)
  if (input.name !== undefined) out.name = input.name
  if (input.double_opt_in !== undefined) out.doubleOptIn = input.double_opt_in
  if (input.consent_text !== undefined) out.consentText = input.consent_text
  if (input.success_url !== undefined) out.successUrl = input.success_url
  if (input.confirmed_url !== undefined) out.confirmedUrl = input.confirmed_url
  if (input.status !== undefined) out.status = input.status
  return out
}

export async function createForm(ctx: Ctx, input: FormInput, clientIdParam?: string) {
  const clientId = await ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  const set = await resolve(ctx, clientId, { fields: ['email'], ...input })
  const now = ctx.clock.now()
  const row = (
    await ctx.db
      .insert(forms)
      .values({
        id: newId(),
        clientId,
        name: input.name,
        listIds: set.listIds!,
        fields: set.fields!,
        doubleOptIn: set.doubleOptIn ?? true,
        confirmationTemplateId: set.confirmationTemplateId ?? null,
        consentText: input.consent_text,
        successUrl: set.successUrl ?? null,
        confirmedUrl: set.confirmedUrl ?? null,
        status: set.status ?? 'active',
        createdAt: now,
        updatedAt: now,
      })
      .returning()
  )[0]!
  return presentForm(row, ctx.config.publicUrl)
}

export const getForm = async (ctx: Ctx, id: string) =>
  presentForm(await findFormRow(ctx, id), ctx.config.publicUrl)

export async function listForms(ctx: Ctx, page: { limit?: number; cursor?: string; client_id?: string }) {
  return await paginate(
    ctx.db,
    ctx.secretKey,
    forms,
    forms.id,
    listFilter(ctx.actor, forms.clientId, page.client_id),
    page,
    (r) => presentForm(r, ctx.config.publicUrl),
  )
}

export async function updateForm(ctx: Ctx, id: string, patch: FormPatch) {
  const current = await findFormRow(ctx, id)
  const set = await resolve(ctx, current.clientId, patch)
  const row = (
    await ctx.db
      .update(forms)
      .set({ ...set, updatedAt: ctx.clock.now() })
      .where(eq(forms.id, id))
      .returning()
  )[0]!
  return presentForm(row, ctx.config.publicUrl)
}

/** The form goes; the consents it gathered keep its id as evidence of where they came from. */
export async function deleteForm(ctx: Ctx, id: string) {
  await findFormRow(ctx, id)
  await ctx.db.delete(optInConfirmations).where(eq(optInConfirmations.sourceId, id))
  await ctx.db.delete(forms).where(eq(forms.id, id))
  return { id, deleted: true }
}
