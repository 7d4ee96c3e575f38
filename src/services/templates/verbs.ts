import { defineVerb } from '../verbs/define'
import { renderDraft } from './draft'
import {
  CreateTemplateInput,
  ListTemplatesInput,
  PreviewTemplateInput,
  RenderDraftInput,
  TemplateRef,
  UpdateTemplateInput,
} from './inputs'
import { previewTemplate } from './preview'
import { createTemplate, deleteTemplate, getTemplate, listTemplates, updateTemplate } from './records'

export const listTemplatesVerb = defineVerb({
  name: 'templates.list',
  scope: 'any',
  input: ListTemplatesInput,
  mutates: false,
  run: async (ctx, input) => await listTemplates(ctx, input),
})

export const createTemplateVerb = defineVerb({
  name: 'templates.create',
  scope: 'templates:write',
  input: CreateTemplateInput,
  mutates: true,
  run: async (ctx, { client_id, ...fields }) => await createTemplate(ctx, client_id, fields),
})

export const getTemplateVerb = defineVerb({
  name: 'templates.get',
  scope: 'any',
  input: TemplateRef,
  mutates: false,
  run: async (ctx, { id }) => await getTemplate(ctx, id),
})

export const updateTemplateVerb = defineVerb({
  name: 'templates.update',
  scope: 'templates:write',
  input: UpdateTemplateInput,
  mutates: true,
  run: async (ctx, { id, ...patch }) => await updateTemplate(ctx, id, patch),
})

export const deleteTemplateVerb = defineVerb({
  name: 'templates.delete',
  scope: 'templates:write',
  input: TemplateRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await deleteTemplate(ctx, id),
})

// Writes nothing, but it is a POST: it counts as a change for scopes and portal roles.
export const previewTemplateVerb = defineVerb({
  name: 'templates.preview',
  scope: 'any',
  input: PreviewTemplateInput,
  // A POST for its sample body; it renders and changes nothing.
  mutates: false,
  // The render runs on a render thread: it is awaited before the (empty) transaction.
  prepare: async (ctx, { id, ...input }) => await previewTemplate(ctx, id, input),
  run: (_ctx, _input, previewed) => previewed,
})

// Portal-only (no REST operation: the spec names none): the editor's live preview of unsaved
// text. A read, so a viewer may preview what it cannot save.
export const renderDraftTemplateVerb = defineVerb({
  name: 'templates.render-draft',
  scope: 'any',
  input: RenderDraftInput,
  mutates: false,
  prepare: async (ctx, input) => await renderDraft(ctx, input),
  run: (_ctx, _input, previewed) => previewed,
})
