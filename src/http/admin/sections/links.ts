import type { TSchema } from '@sinclair/typebox'
import type { Verb } from '../../../services/verbs/define'
import { invoke } from '../../../services/verbs/invoke'
import { type PortalRequest, type PortalRoute, page } from '../types'

// Links that keep a list page's search and filters: "older" pages and filter forms rebuild the
// query string from the values the page was asked with, never from free text pasted into HTML.

/** The href of the next page: the current filters plus the cursor. */
export function nextPageUrl(
  path: string,
  filters: Record<string, string | undefined>,
  cursor: string | null,
): string | null {
  if (!cursor) return null
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(filters)) if (v) q.set(k, v)
  q.set('cursor', cursor)
  return `${path}?${q}`
}

/** A list page's slice: `limit` rows from the cursor its "older" link carried. */
export const pageQuery = (req: PortalRequest, limit = 50) => ({ limit, cursor: queryValue(req, 'cursor') })

/** What a list page shows under its table: the count, and the "older" link keeping `filters`. */
export function pageLinks(
  path: string,
  pagination: { total: number; next_cursor: string | null },
  filters: Record<string, string | undefined> = {},
): { total: number; next_url: string | null } {
  return { total: pagination.total, next_url: nextPageUrl(path, filters, pagination.next_cursor) }
}

/**
 * A section's index: GET `path` shows one page of `verb`'s rows (as `rows` in `view`) with the
 * count and the "older" link, and whatever else `more` gives the view. A `filter` is read from
 * the query and kept in the view and the link; the verb gets it only if `allowed` has it (an
 * unknown value in the address lists everything rather than failing).
 */
export function indexRoute<I extends TSchema, R, P>(
  path: string,
  verb: Verb<I, { data: R[]; pagination: { total: number; next_cursor: string | null } }, P>,
  view: {
    template: string
    title: string
    rows: string
    filter?: { name: string; allowed?: readonly string[] }
    more?: (req: PortalRequest) => Record<string, unknown>
  },
): PortalRoute {
  const filter = view.filter
  return {
    method: 'GET',
    path,
    handler: async (req) => {
      const value = filter ? queryValue(req, filter.name) : undefined
      const applies = value !== undefined && (!filter?.allowed || filter.allowed.includes(value))
      const result = await invoke(verb, req.ctx, {
        ...pageQuery(req),
        ...(filter && applies ? { [filter.name]: value } : {}),
      })
      const filters = filter ? { [filter.name]: value } : {}
      return page(view.template, view.title, {
        [view.rows]: result.data,
        ...(filter ? { [filter.name]: value ?? '' } : {}),
        ...pageLinks(path, result.pagination, filters),
        ...view.more?.(req),
      })
    },
  }
}

/** A query parameter, trimmed; empty → undefined. */
export function queryValue(req: PortalRequest, name: string): string | undefined {
  const v = req.query.get(name)?.trim()
  return v ? v : undefined
}

/** The workspace a create writes into, for a form's explanation ("choose a workspace first"). */
export const needsWorkspace = (req: PortalRequest) => req.workspace === null
