import { searchContactsVerb } from '../../../services/contacts/verbs'
import {
  addListMembersVerb,
  createListVerb,
  deleteListVerb,
  getListVerb,
  listListMembersVerb,
  listListsVerb,
  removeListMembersVerb,
  updateListVerb,
} from '../../../services/lists/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { confirmedAction } from '../confirmed'
import { type FieldErrors, list, submit, text, values } from '../forms'
import { defineSection, type PortalRequest, page, redirect } from '../types'
import { indexRoute, needsWorkspace, nextPageUrl, queryValue } from './links'

// Lists: the lists with their maintained member counts, create, a list's page with
// its members (paginated) and its opt-in settings, adding members found by a search of their email or name (or pasted
// ids), removing members, and deleting the list behind a confirmation page.

const PATH = '/admin/lists'

function newForm(req: PortalRequest, errors: FieldErrors = {}, given: Record<string, unknown> = {}) {
  return page('pages/lists/new', 'New list', { errors, values: given, no_workspace: needsWorkspace(req) })
}

/** The list's page: members, and the contacts a search found to add. */
async function listPage(req: PortalRequest, errors: FieldErrors = {}, given: Record<string, unknown> = {}) {
  const id = req.params.id!
  const l = await invoke(getListVerb, req.ctx, { id })
  const cursor = queryValue(req, 'cursor')
  const find = queryValue(req, 'find')
  const members = await invoke(listListMembersVerb, req.ctx, { id: l.id, limit: 50, cursor })
  const found = find ? (await invoke(searchContactsVerb, req.ctx, { query: find, limit: 20 })).data : null
  return page('pages/lists/show', l.name, {
    list: l,
    members: members.data,
    next_url: nextPageUrl(`${PATH}/${l.id}`, { find }, members.pagination.next_cursor),
    find: find ?? '',
    found,
    errors,
    values: given,
  })
}

/** The opt-in settings as the create and settings forms send them. */
const optionsOf = (req: PortalRequest) => ({
  opt_in: text(req, 'opt_in') as 'single' | 'double' | undefined,
  public: req.form?.get('public') === 'on',
  public_name: text(req, 'public_name') ?? null,
})

/** Ids pasted into the form (one per line, or separated by commas or spaces) and ticked boxes. */
function contactIds(req: PortalRequest): string[] {
  const pasted = (text(req, 'ids') ?? '').split(/[\s,;]+/).filter(Boolean)
  return [...new Set([...list(req, 'contact_ids'), ...pasted])]
}

const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`

export const listsSection = defineSection({
  path: PATH,
  title: 'Lists',
  order: 20,
  group: 'audience',
  routes: [
    indexRoute(PATH, listListsVerb, { template: 'pages/lists/index', title: 'Lists', rows: 'lists' }),
    { method: 'GET', path: `${PATH}/new`, handler: (req) => newForm(req) },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) =>
        await submit(
          req,
          createListVerb,
          { name: text(req, 'name') ?? '', description: text(req, 'description'), ...optionsOf(req) },
          {
            done: (l) =>
              redirect(`${PATH}/${l.id}`, { kind: 'success', message: `Created the list “${l.name}”.` }),
            retry: (errors) => newForm(req, errors, values(req)),
          },
        ),
    },
    { method: 'GET', path: `${PATH}/:id`, handler: async (req) => await listPage(req) },
    {
      method: 'POST',
      path: `${PATH}/:id/settings`,
      handler: async (req) =>
        await submit(
          req,
          updateListVerb,
          { id: req.params.id, ...optionsOf(req) },
          {
            done: (l) =>
              redirect(`${PATH}/${l.id}`, { kind: 'success', message: 'Saved the list’s settings.' }),
            retry: async (errors) => await listPage(req, errors, values(req)),
          },
        ),
    },
    {
      method: 'POST',
      path: `${PATH}/:id/add`,
      handler: async (req) =>
        await submit(
          req,
          addListMembersVerb,
          { id: req.params.id, contact_ids: contactIds(req) },
          {
            done: (l) =>
              redirect(`${PATH}/${l.id}`, {
                kind: 'success',
                message: `Added ${plural(l.added, 'contact')}; the list has ${plural(l.member_count, 'member')}.`,
              }),
            retry: async (errors) => await listPage(req, errors, values(req)),
          },
        ),
    },
    {
      method: 'POST',
      path: `${PATH}/:id/remove`,
      handler: async (req) =>
        await submit(
          req,
          removeListMembersVerb,
          { id: req.params.id, contact_ids: list(req, 'contact_ids') },
          {
            done: (l) =>
              redirect(`${PATH}/${l.id}`, {
                kind: 'success',
                message: `Removed ${plural(l.removed, 'contact')} from the list.`,
              }),
            retry: async (errors) =>
              await listPage(req, {
                ...errors,
                remove: errors.contact_ids ? 'Tick at least one member to remove.' : (errors._form ?? ''),
              }),
          },
        ),
    },
    ...confirmedAction({
      path: `${PATH}/:id/delete`,
      back: PATH,
      find: async (req) => await invoke(getListVerb, req.ctx, { id: req.params.id }),
      confirm: (l) => page('pages/lists/delete', `Delete ${l.name}`, { list: l }),
      act: async (req, l) => await invoke(deleteListVerb, req.ctx, { id: l.id }),
      done: (l) => `Deleted the list “${l.name}”.`,
    }),
  ],
})
