import { ServiceError } from '../../../errors'
import { TEMPLATE_CHANNELS } from '../../../lib/enums'
import { listContactsVerb } from '../../../services/contacts/verbs'
import {
  createTemplateVerb,
  deleteTemplateVerb,
  getTemplateVerb,
  listTemplatesVerb,
  previewTemplateVerb,
  renderDraftTemplateVerb,
  updateTemplateVerb,
} from '../../../services/templates/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { confirmedAction } from '../confirmed'
import { type FieldErrors, fieldErrorsOf, submit, text, values } from '../forms'
import { inertHtml } from '../inert-html'
import { defineSection, fragment, type PortalRequest, page, redirect } from '../types'
import { indexRoute, needsWorkspace, queryValue } from './links'

// Templates: the list, a create form, and the template's page, which is its editor
// (subject, HTML and text, channel) beside a preview rendered by the templates.preview verb for
// a chosen contact: the missing variables, SMS length/segments/encoding for an SMS template, and
// the HTML only inside <iframe sandbox srcdoc>. The preview is of the saved template (the verb
// renders what is stored). While the user types, and when another contact is chosen, the
// editor's fields post (typing: 400 ms after the last change) to a fragment that renders the
// UNSAVED text with templates.render-draft — the same preview, plus a syntax
// error's line and column next to its field (swapped out of band); without JavaScript the
// form's "Preview" button posts the same fields to a route that re-renders the whole page.
// Deleting asks on a page of its own.

const PATH = '/admin/templates'

/** The form's fields as the verbs take them: an empty field clears the member (null). */
function fieldsOf(req: PortalRequest) {
  const nullable = (name: string) => text(req, name) ?? null
  return {
    name: text(req, 'name') ?? '',
    channel: text(req, 'channel'),
    subject: nullable('subject'),
    body_html: nullable('body_html'),
    body_text: nullable('body_text'),
  }
}

function newForm(req: PortalRequest, errors: FieldErrors = {}, given: Record<string, unknown> = {}) {
  return page('pages/templates/new', 'New template', {
    errors,
    values: { channel: 'email', ...given },
    channels: TEMPLATE_CHANNELS,
    no_workspace: needsWorkspace(req),
  })
}

/** Contacts to preview with: the newest page of the template's workspace. */
async function sampleContacts(req: PortalRequest, clientId: string) {
  const page = await invoke(listContactsVerb, req.ctx, { limit: 50, client_id: clientId })
  return page.data.map((c) => ({ id: c.id, label: c.email ?? c.phone ?? c.id }))
}

type Previewed = {
  preview: Record<string, unknown> | null
  preview_error: string | null
  errors: FieldErrors
}

/** The editor's fields whose draft errors show next to them (see pages/templates/fields). */
const DRAFT_FIELDS = ['channel', 'subject', 'body_html', 'body_text'] as const
const FIELD_LABELS: Record<string, string> = {
  channel: 'Channel',
  subject: 'Subject',
  body_html: 'HTML body',
  body_text: 'Text body',
}

/** A preview verb's answer as data for pages/templates/preview (422s become messages). */
async function previewOf(run: () => Promise<{ body_html: string | null }>): Promise<Previewed> {
  try {
    const p = await run()
    const shown = { ...p, body_html: p.body_html ? inertHtml(p.body_html) : null }
    return { preview: shown, preview_error: null, errors: {} }
  } catch (err) {
    if (!(err instanceof ServiceError) || err.code !== 'VALIDATION_FAILED') throw err
    const e = fieldErrorsOf(err)
    const fields = DRAFT_FIELDS.filter((f) => e[f]).map((f) => `${FIELD_LABELS[f]}: ${e[f]}`)
    const message = e.template ?? e.contact_id ?? (fields.length > 0 ? fields.join(' — ') : err.message)
    return { preview: null, preview_error: message, errors: e }
  }
}

/** The saved template's preview for the chosen contact (or none). */
const preview = (req: PortalRequest, id: string, contactId: string | undefined) =>
  previewOf(
    async () =>
      await invoke(previewTemplateVerb, req.ctx, { id, ...(contactId ? { contact_id: contactId } : {}) }),
  )

/** The contact chosen for a draft's preview: the chooser's (htmx), else the edit form's copy. */
const draftContact = (req: PortalRequest) => text(req, 'contact_id') ?? text(req, 'preview_contact_id')

/** The unsaved fields of the edit form, rendered by templates.render-draft. */
function draftPreview(req: PortalRequest) {
  const { name: _name, ...fields } = fieldsOf(req)
  const contactId = draftContact(req)
  return previewOf(
    async () =>
      await invoke(renderDraftTemplateVerb, req.ctx, {
        id: req.params.id!,
        ...fields,
        ...(contactId ? { contact_id: contactId } : {}),
      }),
  )
}

async function editPage(
  req: PortalRequest,
  errors: FieldErrors = {},
  given?: Record<string, unknown>,
  draft?: Previewed,
) {
  const t = await invoke(getTemplateVerb, req.ctx, { id: req.params.id! })
  const contactId = draft ? draftContact(req) : queryValue(req, 'contact_id')
  const { errors: draftErrors, ...shown } = draft ?? (await preview(req, t.id, contactId))
  return page(
    'pages/templates/show',
    t.name,
    {
      template: t,
      values: given ?? t,
      // A draft's errors show next to its fields, as a save's would.
      errors: draft ? draftErrors : errors,
      live: true,
      channels: TEMPLATE_CHANNELS,
      contacts: await sampleContacts(req, t.client_id),
      contact_id: contactId ?? '',
      ...shown,
    },
    draft?.preview_error ? 422 : 200,
  )
}

export const templatesSection = defineSection({
  path: PATH,
  title: 'Templates',
  order: 30,
  group: 'messaging',
  routes: [
    indexRoute(PATH, listTemplatesVerb, {
      template: 'pages/templates/index',
      title: 'Templates',
      rows: 'templates',
    }),
    { method: 'GET', path: `${PATH}/new`, handler: (req) => newForm(req) },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) =>
        await submit(req, createTemplateVerb, fieldsOf(req), {
          done: (t) =>
            redirect(`${PATH}/${t.id}`, { kind: 'success', message: `Created the template “${t.name}”.` }),
          retry: (errors) => newForm(req, errors, values(req)),
        }),
    },
    { method: 'GET', path: `${PATH}/:id`, handler: async (req) => await editPage(req) },
    {
      method: 'POST',
      path: `${PATH}/:id`,
      handler: async (req) =>
        await submit(
          req,
          updateTemplateVerb,
          { id: req.params.id!, ...fieldsOf(req) },
          {
            done: (t) =>
              redirect(`${PATH}/${t.id}`, { kind: 'success', message: `Saved the template “${t.name}”.` }),
            retry: async (errors) => await editPage(req, errors, values(req)),
          },
        ),
    },
    {
      // The saved template's preview alone (the editor's chooser now posts the draft instead).
      method: 'GET',
      path: `${PATH}/:id/preview`,
      handler: async (req) => {
        const t = await invoke(getTemplateVerb, req.ctx, { id: req.params.id! })
        const contactId = queryValue(req, 'contact_id')
        return fragment('pages/templates/preview', { template: t, ...(await preview(req, t.id, contactId)) })
      },
    },
    {
      // The live preview of the unsaved fields (the editor's htmx request, 400 ms after typing):
      // the preview swaps #template-preview; each field's draft message swaps out of band.
      method: 'POST',
      path: `${PATH}/:id/draft-preview`,
      handler: async (req) => {
        const t = await invoke(getTemplateVerb, req.ctx, { id: req.params.id! })
        const { errors, ...shown } = await draftPreview(req)
        return fragment(
          'pages/templates/draft-preview',
          { template: t, ...shown, errors, fields: DRAFT_FIELDS },
          shown.preview_error ? 422 : 200,
        )
      },
    },
    {
      // The same without JavaScript: the form's "Preview" button re-renders the page with it.
      method: 'POST',
      path: `${PATH}/:id/draft`,
      handler: async (req) => await editPage(req, {}, values(req), await draftPreview(req)),
    },
    // A reload of the pushed URL after a boosted Preview: back to the saved template.
    { method: 'GET', path: `${PATH}/:id/draft`, handler: (req) => redirect(`${PATH}/${req.params.id}`) },
    ...confirmedAction({
      path: `${PATH}/:id/delete`,
      back: PATH,
      find: async (req) => await invoke(getTemplateVerb, req.ctx, { id: req.params.id! }),
      confirm: (t) => page('pages/templates/delete', `Delete ${t.name}`, { template: t }),
      act: async (req, t) => await invoke(deleteTemplateVerb, req.ctx, { id: t.id }),
      done: (t) => `Deleted the template “${t.name}”.`,
    }),
  ],
})
