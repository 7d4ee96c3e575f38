import {
  addSuppressionVerb,
  listSuppressionsVerb,
  removeSuppressionVerb,
  searchSuppressionsVerb,
} from '../../../services/suppressions/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { type FieldErrors, submit, text, values } from '../forms'
import { defineSection, type PortalRequest, page, redirect } from '../types'
import { needsWorkspace, nextPageUrl, queryValue } from './links'

// Suppressions: addresses Herald never sends to. The list (searched by address
// prefix), adding one by hand, and removing one behind a confirmation page (removing lets mail
// reach that address again, so it is not a one-click action).

const PATH = '/admin/suppressions'

async function listPage(req: PortalRequest, errors: FieldErrors = {}, given: Record<string, unknown> = {}) {
  const q = queryValue(req, 'q')
  const cursor = queryValue(req, 'cursor')
  const result = q
    ? await invoke(searchSuppressionsVerb, req.ctx, { query: q, limit: 50, cursor })
    : await invoke(listSuppressionsVerb, req.ctx, { limit: 50, cursor })
  return page('pages/suppressions/index', 'Suppressions', {
    suppressions: result.data,
    total: result.pagination.total,
    next_url: nextPageUrl(PATH, { q }, result.pagination.next_cursor),
    q: q ?? '',
    errors,
    values: given,
    no_workspace: needsWorkspace(req),
  })
}

export const suppressionsSection = defineSection({
  path: PATH,
  title: 'Suppressions',
  order: 70,
  group: 'audience',
  routes: [
    { method: 'GET', path: PATH, handler: async (req) => await listPage(req) },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) =>
        await submit(
          req,
          addSuppressionVerb,
          { email: text(req, 'email')?.trim() ?? '', reason: text(req, 'reason') },
          {
            done: (s) =>
              redirect(PATH, {
                kind: 'success',
                message: `Suppressed ${s.email}: nothing will be sent to it.`,
              }),
            retry: async (errors) => await listPage(req, errors, values(req)),
          },
        ),
    },
    {
      method: 'GET',
      path: `${PATH}/remove`,
      handler: (req) =>
        page('pages/suppressions/remove', 'Remove a suppression', {
          email: queryValue(req, 'email') ?? '',
          client_id: queryValue(req, 'client_id') ?? '',
        }),
    },
    {
      method: 'POST',
      path: `${PATH}/remove`,
      handler: async (req) => {
        const removed = await invoke(removeSuppressionVerb, req.ctx, {
          email: text(req, 'email') ?? '',
          client_id: text(req, 'client_id'),
        })
        return redirect(PATH, {
          kind: 'success',
          message: `Removed the suppression of ${removed.email}; it can receive mail again.`,
        })
      },
    },
  ],
})
