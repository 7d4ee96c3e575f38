import { CONTACT_STATUSES } from '../../../lib/enums'
import { listConsentsVerb } from '../../../services/consents/verbs'
import {
  accessExportVerb,
  browseContactsVerb,
  contactActivityVerb,
  createContactVerb,
  eraseContactVerb,
  exportContactsVerb,
  getContactVerb,
  searchContactsVerb,
  updateContactVerb,
} from '../../../services/contacts/verbs'
import { FILTERED_COUNT_CAP } from '../../../services/lists/members'
import { listListsVerb } from '../../../services/lists/verbs'
import { listMessagesVerb } from '../../../services/messages/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { type FieldErrors, list, submit, text, values } from '../forms'
import { defineSection, type PortalRequest, page, redirect } from '../types'
import { needsWorkspace, nextPageUrl, queryValue } from './links'

// Contacts: the table (full-text search through contacts.search, or filters by
// status and list through contacts.browse), create, a contact's page with its event timeline and
// messages, edit, and the GDPR erasure behind a confirmation page. Export is a download through
// contacts.export. Every read and write is a verb called as the signed-in user.

const PATH = '/admin/contacts'
const SETTABLE = ['subscribed', 'unsubscribed', 'blocked'] as const

/** The workspace's lists for the filter and the create form (the first 200; most clients have few). */
async function listsOf(req: PortalRequest) {
  return (await invoke(listListsVerb, req.ctx, { limit: 200 })).data
}

/** Custom fields are typed as a JSON object; a typo is the form's error, not a 500. */
function customFields(req: PortalRequest): { value?: Record<string, unknown>; error?: string } {
  const raw = text(req, 'custom_fields')?.trim()
  if (!raw) return {}
  try {
    const parsed = JSON.parse(raw)
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { value: parsed }
  } catch {}
  return { error: 'must be a JSON object, e.g. {"plan": "pro"}' }
}

/** The contact's fields from the form; on an edit an emptied field becomes null (cleared). */
function contactInput(req: PortalRequest, edit: boolean) {
  const opt = (name: string) => text(req, name)?.trim() || (edit ? null : undefined)
  return {
    email: text(req, 'email')?.trim() ?? (edit ? undefined : ''),
    first_name: opt('first_name'),
    last_name: opt('last_name'),
    company: opt('company'),
    phone: opt('phone'),
    timezone: opt('timezone'),
    status: text(req, 'status'),
  }
}

async function contactForm(
  req: PortalRequest,
  mode: { id?: string },
  errors: FieldErrors = {},
  given: Record<string, unknown> = {},
) {
  const chosen = new Set(list(req, 'list_ids'))
  const lists = mode.id ? [] : (await listsOf(req)).map((l) => ({ ...l, checked: chosen.has(l.id) }))
  return page('pages/contacts/form', mode.id ? 'Edit contact' : 'New contact', {
    errors,
    values: { status: 'subscribed', ...given },
    statuses: SETTABLE,
    lists,
    id: mode.id ?? null,
    no_workspace: !mode.id && needsWorkspace(req),
  })
}

/** Re-fills the edit form from the stored contact. */
function formValues(c: Record<string, unknown>) {
  const custom = c.custom_fields as Record<string, unknown>
  return {
    ...c,
    custom_fields: Object.keys(custom ?? {}).length ? JSON.stringify(custom, null, 2) : '',
  }
}

export const contactsSection = defineSection({
  path: PATH,
  title: 'Contacts',
  order: 10,
  group: 'audience',
  routes: [
    {
      method: 'GET',
      path: PATH,
      handler: async (req) => {
        const q = queryValue(req, 'q')
        const status = queryValue(req, 'status')
        const listId = queryValue(req, 'list_id')
        const cursor = queryValue(req, 'cursor')
        const lists = await listsOf(req)
        // A search is the FTS index's own order; the filters apply to the table without one.
        const result = q
          ? await invoke(searchContactsVerb, req.ctx, { query: q, limit: 50, cursor })
          : await invoke(browseContactsVerb, req.ctx, { limit: 50, cursor, status, list_id: listId })
        const filters = q ? { q } : { status, list_id: listId }
        return page('pages/contacts/index', 'Contacts', {
          contacts: result.data,
          total: result.pagination.total,
          // Filtered counts stop at the cap (contacts.browse); say "more than" above it.
          more_than:
            !q && status !== undefined && result.pagination.total > FILTERED_COUNT_CAP
              ? FILTERED_COUNT_CAP
              : null,
          next_url: nextPageUrl(PATH, filters, result.pagination.next_cursor),
          q: q ?? '',
          status: status ?? '',
          list_id: listId ?? '',
          filtered: Boolean(q || status || listId),
          statuses: CONTACT_STATUSES,
          lists,
        })
      },
    },
    { method: 'GET', path: `${PATH}/new`, handler: async (req) => await contactForm(req, {}) },
    {
      method: 'GET',
      path: `${PATH}/export`,
      handler: async (req) => {
        const file = await invoke(exportContactsVerb, req.ctx, {})
        return new Response(file.body, {
          headers: {
            'content-type': file.contentType,
            'content-disposition': `attachment; filename="${file.filename}"`,
            'cache-control': 'no-store',
          },
        })
      },
    },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) => {
        const custom = customFields(req)
        const input = {
          ...contactInput(req, false),
          custom_fields: custom.value,
          list_ids: list(req, 'list_ids'),
        }
        if (input.list_ids.length === 0) delete (input as { list_ids?: string[] }).list_ids
        if (custom.error)
          return contactForm(
            req,
            {},
            {
              custom_fields: custom.error,
              _summary: 'Some fields need attention; see the messages next to them.',
            },
            values(req),
          ).then((p) => ({ ...p, status: 422 }))
        return await submit(req, createContactVerb, input, {
          done: (c) => redirect(`${PATH}/${c.id}`, { kind: 'success', message: `Added ${c.email}.` }),
          retry: async (errors) => await contactForm(req, {}, errors, values(req)),
        })
      },
    },
    {
      method: 'GET',
      path: `${PATH}/:id`,
      handler: async (req) => {
        const contact = await invoke(getContactVerb, req.ctx, { id: req.params.id })
        const cursor = queryValue(req, 'cursor')
        const activity = await invoke(contactActivityVerb, req.ctx, { id: contact.id, limit: 25, cursor })
        const messages = await invoke(listMessagesVerb, req.ctx, { contact_id: contact.id, limit: 25 })
        const consents = await invoke(listConsentsVerb, req.ctx, { id: contact.id, limit: 50 })
        const custom = Object.entries(contact.custom_fields ?? {}).map(([key, value]) => ({
          key,
          value: typeof value === 'string' ? value : JSON.stringify(value),
        }))
        return page('pages/contacts/show', contact.email, {
          contact,
          custom,
          events: activity.data,
          next_url: nextPageUrl(`${PATH}/${contact.id}`, {}, activity.pagination.next_cursor),
          messages: messages.data,
          more_messages: messages.pagination.has_more,
          messages_total: messages.pagination.total,
          consents: consents.data,
          consents_total: consents.pagination.total,
        })
      },
    },
    {
      // The access request's answer, as the person would receive it: one JSON file.
      method: 'GET',
      path: `${PATH}/:id/export`,
      handler: async (req) => {
        const data = await invoke(accessExportVerb, req.ctx, { id: req.params.id })
        return new Response(JSON.stringify({ data }, null, 2), {
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'content-disposition': `attachment; filename="contact-${data.contact.id}.json"`,
            'cache-control': 'no-store',
          },
        })
      },
    },
    {
      method: 'GET',
      path: `${PATH}/:id/edit`,
      handler: async (req) => {
        const contact = await invoke(getContactVerb, req.ctx, { id: req.params.id })
        return await contactForm(req, { id: contact.id }, {}, formValues(contact))
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id`,
      handler: async (req) => {
        const id = req.params.id!
        const custom = customFields(req)
        if (custom.error)
          return contactForm(
            req,
            { id },
            {
              custom_fields: custom.error,
              _summary: 'Some fields need attention; see the messages next to them.',
            },
            values(req),
          ).then((p) => ({ ...p, status: 422 }))
        const input = { id, ...contactInput(req, true), custom_fields: custom.value ?? {} }
        return await submit(req, updateContactVerb, input, {
          done: (c) => redirect(`${PATH}/${c.id}`, { kind: 'success', message: `Saved ${c.email}.` }),
          retry: async (errors) => await contactForm(req, { id }, errors, values(req)),
        })
      },
    },
    {
      method: 'GET',
      path: `${PATH}/:id/erase`,
      handler: async (req) => {
        const contact = await invoke(getContactVerb, req.ctx, { id: req.params.id })
        return page('pages/contacts/erase', `Erase ${contact.email}`, { contact })
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/erase`,
      handler: async (req) => {
        await invoke(eraseContactVerb, req.ctx, { id: req.params.id })
        // The flash does not repeat the address: the point of the erasure is that it is gone.
        return redirect(PATH, {
          kind: 'success',
          message: 'Erased the contact: their personal data is gone from contacts, messages and events.',
        })
      },
    },
  ],
})
