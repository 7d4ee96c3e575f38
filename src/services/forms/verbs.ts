import { defineVerb } from '../verbs/define'
import { CreateFormInput, FormRef, ListFormsInput, UpdateFormInput } from './inputs'
import { embedHtml } from './markup'
import { formUrl } from './present'
import { createForm, deleteForm, findFormRow, getForm, listForms, updateForm } from './records'

export const listFormsVerb = defineVerb({
  name: 'forms.list',
  scope: 'any',
  input: ListFormsInput,
  mutates: false,
  run: async (ctx, input) => await listForms(ctx, input),
})

export const createFormVerb = defineVerb({
  name: 'forms.create',
  scope: 'lists:write',
  input: CreateFormInput,
  mutates: true,
  run: async (ctx, { client_id, ...fields }) => await createForm(ctx, fields, client_id),
})

export const getFormVerb = defineVerb({
  name: 'forms.get',
  scope: 'any',
  input: FormRef,
  mutates: false,
  run: async (ctx, { id }) => await getForm(ctx, id),
})

export const updateFormVerb = defineVerb({
  name: 'forms.update',
  scope: 'lists:write',
  input: UpdateFormInput,
  mutates: true,
  run: async (ctx, { id, ...patch }) => await updateForm(ctx, id, patch),
})

export const deleteFormVerb = defineVerb({
  name: 'forms.delete',
  scope: 'lists:write',
  input: FormRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await deleteForm(ctx, id),
})

export const formEmbedVerb = defineVerb({
  name: 'forms.embed',
  scope: 'any',
  input: FormRef,
  mutates: false,
  run: async (ctx, { id }) => {
    const row = await findFormRow(ctx, id)
    return { html: embedHtml(formUrl(ctx.config.publicUrl, row.id), row) }
  },
})
