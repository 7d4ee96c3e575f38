import { ServiceError } from '../../errors'
import { listDeliverabilityAlertsVerb } from '../../services/deliverability/verbs'
import { invoke } from '../../services/verbs/invoke'
import type { PortalRequest } from './types'

// An open deliverability alert is shown as a banner on every page of the
// workspace it concerns (or of every client in "All workspaces"), through the alerts verb, so
// the user's role and workspace decide what is seen. One indexed query of open alerts only
// (partial index deliverability_alerts_open_idx / _open_all_idx): a handful of rows, no scan.

/** At most this many messages; the rest is "and N more" with the link. */
const SHOWN = 3
/**
 * A critical alert (complaints at the pause threshold) is announced (role="alert") for its first
 * hour; after that, and for warnings, the banner is a plain labelled region, so a screen reader
 * is not interrupted on every page for a condition it already heard about.
 */
const NEW_MS = 60 * 60 * 1000

export interface AlertBanner {
  urgent: boolean
  bad: boolean
  total: number
  more: number
  alerts: { client: string | null; message: string; level: 'warn' | 'bad' }[]
}

export async function alertBanner(req: PortalRequest, now: number): Promise<AlertBanner | null> {
  // The deliverability pages list the alerts themselves.
  const path = req.url.pathname
  if (path === '/admin/deliverability' || path.startsWith('/admin/deliverability/')) return null
  let page: Awaited<ReturnType<typeof listOpen>>
  try {
    page = await listOpen(req)
  } catch (err) {
    // A user who may not read them (no workspace yet) gets no banner, never a broken page.
    if (err instanceof ServiceError) return null
    throw err
  }
  if (page.data.length === 0) return null
  const everyClient = req.workspace === null
  const names = new Map(req.workspaces.map((w) => [w.id, w.name]))
  return {
    urgent: page.data.some((a) => a.level === 'bad' && now - Date.parse(a.created_at) < NEW_MS),
    bad: page.data.some((a) => a.level === 'bad'),
    total: page.pagination.total,
    more: Math.max(0, page.pagination.total - page.data.length),
    alerts: page.data.map((a) => ({
      client: everyClient ? (names.get(a.client_id) ?? a.client_id) : null,
      message: a.message,
      level: a.level,
    })),
  }
}

const listOpen = async (req: PortalRequest) =>
  await invoke(listDeliverabilityAlertsVerb, req.ctx, { active: true, limit: SHOWN })
