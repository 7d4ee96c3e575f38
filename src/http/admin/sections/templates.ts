import { ServiceError } from '../../../errors'
import { TEMPLATE_CHANNELS } from '../../../lib/enums'
import { listContactsVerb } from '../../../services/contacts/verbs'
import {
  createTemplateVerb,
  deleteTemplateVerb,
  getTemplateVerb,
  listTemplatesVerb,
  previewTemplateVerb,
  updateTemplateVerb,
} from '../../../services/templates/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { type FieldErrors, fieldErrorsOf, submit, text, values } from '../forms'
import { inertHtml } from '../inert-html'
import { defineSection, fragment, type PortalRequest, page, redirect } from '../types'
import { needsWorkspace, nextPageUrl, queryValue } from './links'

// Templates (DESIGN §7): the list, a create form, and the template's page, which is its editor
// (subject, HTML and text, channel) beside a preview rendered by the templates.preview verb for
// a chosen contact: the missing variables, SMS length/segments/encoding for an SMS template, and
// the HTML only inside <iframe sandbox srcdoc>. The preview is of the saved template (the verb
// renders what is stored); choosing another contact refreshes it through an htmx fragment.
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

/** The preview for the chosen contact (or none), as data for pages/templates/preview. */
async function preview(req: PortalRequest, id: string, contactId: string | undefined) {
  try {
    const p = await invoke(previewTemplateVerb, req.ctx, {
      id,
      ...(contactId ? { contact_id: contactId } : {}),
    })
    return { preview: { ...p, body_html: p.body_html ? inertHtml(p.body_html) : null }, preview_error: null }
  } catch (err) {
    if (!(err instanceof ServiceError) || err.code !== 'VALIDATION_FAILED') throw err
    const e = fieldErrorsOf(err)
    return { preview: null, preview_error: e.template ?? e.contact_id ?? err.message }
  }
}

async function editPage(req: PortalRequest, errors: FieldErrors = {}, given?: Record<string, unknown>) {
  const t = await invoke(getTemplateVerb, req.ctx, { id: req.params.id! })
  const contactId = queryValue(req, 'contact_id')
  return page('pages/templates/show', t.name, {
    template: t,
    values: given ?? t,
    errors,
    channels: TEMPLATE_CHANNELS,
    contacts: await sampleContacts(req, t.client_id),
    contact_id: contactId ?? '',
    ...(await preview(req, t.id, contactId)),
  })
}

export const templatesSection = defineSection({
  path: PATH,
  title: 'Templates',
  order: 30,
  routes: [
    {
      method: 'GET',
      path: PATH,
      handler: async (req) => {
        const cursor = queryValue(req, 'cursor')
        const result = await invoke(listTemplatesVerb, req.ctx, { limit: 50, cursor })
        return page('pages/templates/index', 'Templates', {
          templates: result.data,
          total: result.pagination.total,
          next_url: nextPageUrl(PATH, {}, result.pagination.next_cursor),
        })
      },
    },
    { method: 'GET', path: `${PATH}/new`, handler: (req) => newForm(req) },
    {
      method: 'POST',
      path: PATH,
      handler: (req) =>
        submit(req, createTemplateVerb, fieldsOf(req), {
          done: (t) =>
            redirect(`${PATH}/${t.id}`, { kind: 'success', message: `Created the template “${t.name}”.` }),
          retry: (errors) => newForm(req, errors, values(req)),
        }),
    },
    { method: 'GET', path: `${PATH}/:id`, handler: (req) => editPage(req) },
    {
      method: 'POST',
      path: `${PATH}/:id`,
      handler: (req) =>
        submit(
          req,
          updateTemplateVerb,
          { id: req.params.id!, ...fieldsOf(req) },
          {
            done: (t) =>
              redirect(`${PATH}/${t.id}`, { kind: 'success', message: `Saved the template “${t.name}”.` }),
            retry: (errors) => editPage(req, errors, values(req)),
          },
        ),
    },
    {
      // The preview alone, for the contact chooser's htmx request.
      method: 'GET',
      path: `${PATH}/:id/preview`,
      handler: async (req) => {
        const t = await invoke(getTemplateVerb, req.ctx, { id: req.params.id! })
        const contactId = queryValue(req, 'contact_id')
        return fragment('pages/templates/preview', { template: t, ...(await preview(req, t.id, contactId)) })
      },
    },
    {
      method: 'GET',
      path: `${PATH}/:id/delete`,
      handler: async (req) => {
        const t = await invoke(getTemplateVerb, req.ctx, { id: req.params.id! })
        return page('pages/templates/delete', `Delete ${t.name}`, { template: t })
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/delete`,
      handler: async (req) => {
        const t = await invoke(getTemplateVerb, req.ctx, { id: req.params.id! })
        try {
          await invoke(deleteTemplateVerb, req.ctx, { id: t.id })
        } catch (err) {
          // In use (a campaign or journey names it): say why on the template's page.
          if (err instanceof ServiceError && (err.code === 'CONFLICT' || err.code === 'INVALID_STATE'))
            return redirect(`${PATH}/${t.id}`, { kind: 'error', message: err.message })
          throw err
        }
        return redirect(PATH, { kind: 'success', message: `Deleted the template “${t.name}”.` })
      },
    },
  ],
})
