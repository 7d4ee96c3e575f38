import type { PortalRequest } from '../types'

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

/** A query parameter, trimmed; empty → undefined. */
export function queryValue(req: PortalRequest, name: string): string | undefined {
  const v = req.query.get(name)?.trim()
  return v ? v : undefined
}

/** The workspace a create writes into, for a form's explanation ("choose a workspace first"). */
export const needsWorkspace = (req: PortalRequest) => req.workspace === null
