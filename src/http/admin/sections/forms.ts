import type { presentForm } from '../../../services/forms/present'
import {
  createFormVerb,
  deleteFormVerb,
  formEmbedVerb,
  getFormVerb,
  listFormsVerb,
  updateFormVerb,
} from '../../../services/forms/verbs'
import { listListsVerb } from '../../../services/lists/verbs'
import { listTemplatesVerb } from '../../../services/templates/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { confirmedAction } from '../confirmed'
import { checkboxes, type FieldErrors, list, submit, text, values } from '../forms'
import { defineSection, type PortalRequest, page, redirect } from '../types'
import { indexRoute, needsWorkspace } from './links'

// Signup forms: the client's forms, the editor (lists, fields, consent text, double opt-in,
// where to go after, status), and a form's page with a link to its hosted page (a preview that
// cannot be framed: the public pages forbid it) and the embed HTML to copy.

const PATH = '/admin/forms'
const OPTIONAL_FIELDS = ['first_name', 'last_name', 'company', 'phone'] as const

type Given = Record<string, string | string[] | boolean | null | undefined>

/** The editor's choices: the client's lists and email templates, ticked or chosen as `given` says. */
async function editor(req: PortalRequest, title: string, errors: FieldErrors, given: Given, id?: string) {
  const lists = (await invoke(listListsVerb, req.ctx, { limit: 200 })).data
  const templates = (await invoke(listTemplatesVerb, req.ctx, { limit: 200 })).data.filter(
    (tpl) => tpl.channel === 'email',
  )
  const chosen = (v: Given[string]) => (Array.isArray(v) ? v : typeof v === 'string' ? [v] : [])
  const listIds = new Set(chosen(given.list_ids))
  return page('pages/forms/edit', title, {
    id,
    errors,
    values: given,
    lists: lists.map((l) => ({ id: l.id, name: l.name, checked: listIds.has(l.id) })),
    fields: checkboxes(OPTIONAL_FIELDS, chosen(given.fields)),
    templates,
    no_workspace: needsWorkspace(req),
  })
}

/** The editor's values as the form verbs take them (a blank URL clears it). */
function formInput(req: PortalRequest) {
  const custom = (text(req, 'custom_fields') ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((k) => `custom.${k}`)
  return {
    name: text(req, 'name') ?? '',
    list_ids: list(req, 'list_ids'),
    fields: ['email', ...list(req, 'fields'), ...custom],
    double_opt_in: req.form?.get('double_opt_in') === 'on',
    confirmation_template_id: text(req, 'confirmation_template_id') ?? null,
    consent_text: text(req, 'consent_text') ?? '',
    success_url: text(req, 'success_url') ?? null,
    confirmed_url: text(req, 'confirmed_url') ?? null,
    status: text(req, 'status') === 'disabled' ? ('disabled' as const) : ('active' as const),
  }
}

/** A saved form as the editor shows it. */
function givenOf(f: ReturnType<typeof presentForm>): Given {
  return {
    name: f.name,
    list_ids: f.list_ids,
    fields: f.fields,
    custom_fields: f.fields
      .filter((x) => x.startsWith('custom.'))
      .map((x) => x.slice(7))
      .join(', '),
    double_opt_in: f.double_opt_in,
    confirmation_template_id: f.confirmation_template_id,
    consent_text: f.consent_text,
    success_url: f.success_url,
    confirmed_url: f.confirmed_url,
    status: f.status,
  }
}

async function showPage(req: PortalRequest, errors: FieldErrors = {}, given?: Given) {
  const f = await invoke(getFormVerb, req.ctx, { id: req.params.id! })
  const { html } = await invoke(formEmbedVerb, req.ctx, { id: f.id })
  const edit = await editor(req, f.name, errors, given ?? givenOf(f), f.id)
  return page('pages/forms/show', f.name, { ...edit.data, form: f, embed: html })
}

export const formsSection = defineSection({
  path: PATH,
  title: 'Forms',
  order: 30,
  group: 'audience',
  routes: [
    indexRoute(PATH, listFormsVerb, { template: 'pages/forms/index', title: 'Forms', rows: 'forms' }),
    {
      method: 'GET',
      path: `${PATH}/new`,
      handler: async (req) =>
        await editor(
          req,
          'New form',
          {},
          { double_opt_in: true, consent_text: 'Yes, I want to receive your emails.' },
        ),
    },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) =>
        await submit(req, createFormVerb, formInput(req), {
          done: (f) =>
            redirect(`${PATH}/${f.id}`, { kind: 'success', message: `Created the form “${f.name}”.` }),
          retry: async (errors) =>
            await editor(req, 'New form', errors, {
              ...values(req),
              double_opt_in: req.form?.get('double_opt_in') === 'on',
            }),
        }),
    },
    { method: 'GET', path: `${PATH}/:id`, handler: async (req) => await showPage(req) },
    {
      method: 'POST',
      path: `${PATH}/:id`,
      handler: async (req) =>
        await submit(
          req,
          updateFormVerb,
          { id: req.params.id, ...formInput(req) },
          {
            done: (f) =>
              redirect(`${PATH}/${f.id}`, { kind: 'success', message: `Saved the form “${f.name}”.` }),
            retry: async (errors) =>
              await showPage(req, errors, {
                ...values(req),
                double_opt_in: req.form?.get('double_opt_in') === 'on',
              }),
          },
        ),
    },
    ...confirmedAction({
      path: `${PATH}/:id/delete`,
      back: PATH,
      find: async (req) => await invoke(getFormVerb, req.ctx, { id: req.params.id }),
      confirm: (f) => page('pages/forms/delete', `Delete ${f.name}`, { form: f }),
      act: async (req, f) => await invoke(deleteFormVerb, req.ctx, { id: f.id }),
      done: (f) => `Deleted the form “${f.name}”.`,
    }),
  ],
})
