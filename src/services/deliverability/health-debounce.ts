import type { Database } from 'bun:sqlite'
import type { AppContext } from '../../context'
import { DIALECT } from '../../db/dialect'
import { clientsHitSince } from '../../db/postgres/rollups'
import { QUARTER_MS, quarterOf } from '../../db/rollups'
import { afterCommit } from '../../lib/after-transaction'
import { filterInOrder } from '../../lib/in-order'
import { checkSendingHealth } from './alerts'

// A burst of bounce (or complaint) callbacks would run the sending-health check once per
// message, each walking the rollups and rewriting the open alert. Per client, the check runs at
// the first bounce or complaint, then at most once per interval: one arriving sooner only marks
// the client, and the `deliverability.health` job (every few seconds) runs the marked clients'
// check once their interval is over, so the last of a burst still raises its alert or pauses
// the campaigns within two intervals. Time is the injected clock's.

export const HEALTH_CHECK_INTERVAL_MS = 5_000

interface ClientCheck {
  lastRun: number
  pending: boolean
}
interface State {
  clients: Map<string, ClientCheck>
  /** Whether this process has looked for checks a previous one put off and never ran. */
  swept: boolean
}

// Keyed by the connection: one state per app, whatever request context calls.
const states = new WeakMap<Database, State>()
function stateOf(app: AppContext): State {
  let s = states.get(app.sqlite)
  if (!s) {
    s = { clients: new Map(), swept: false }
    states.set(app.sqlite, s)
  }
  return s
}

/**
 * After a message's first bounce or complaint, in the transaction that recorded it: the check
 * now, unless this client's ran within the interval (then it is left to the job). The check is
 * noted as run once that transaction commits: rolled back, its check is lost with it, and the
 * next event runs it again.
 */
export async function healthAfterBounceOrComplaint(
  app: AppContext,
  clientId: string,
  at: number,
): Promise<void> {
  const s = stateOf(app)
  const now = app.clock.now()
  const c = s.clients.get(clientId)
  if (c && now - c.lastRun < HEALTH_CHECK_INTERVAL_MS) {
    c.pending = true
    return
  }
  await checkSendingHealth(app, clientId, at)
  afterCommit(() => s.clients.set(clientId, { lastRun: now, pending: false }))
}

/** Clients with a bounce or complaint in this quarter-hour or the last (one index seek each). */
async function recentlyHit(app: AppContext, now: number): Promise<string[]> {
  const since = quarterOf(now) - QUARTER_MS
  if (DIALECT === 'postgres') return await clientsHitSince(app.db, since)
  const sqlite = app.sqlite
  const hit = sqlite.query<{ one: number }, [string, number]>(
    'SELECT 1 AS one FROM analytics_totals WHERE client_id = ?1 AND bucket >= ?2 AND (bounced > 0 OR complained > 0) LIMIT 1',
  )
  const clients = await sqlite.query<{ id: string }, []>('SELECT id FROM clients').all()
  return (await filterInOrder(clients, async ({ id }) => (await hit.get(id, since)) !== null)).map(
    ({ id }) => id,
  )
}

/**
 * Whether the job has anything to do now: a process's first run (the sweep below), or a marked
 * client whose interval is over. Memory only, so the job's schedule can ask every few seconds
 * without touching the database; an idle firing is skipped (no transaction, no job run stored).
 * Clients idle for an interval are forgotten here too.
 */
export function healthChecksDue(app: AppContext): boolean {
  const s = stateOf(app)
  if (!s.swept) return true
  const now = app.clock.now()
  let due = false
  for (const [id, c] of s.clients) {
    if (now - c.lastRun < HEALTH_CHECK_INTERVAL_MS) continue
    if (c.pending) due = true
    else s.clients.delete(id)
  }
  return due
}

/**
 * The job: each marked client's check once its interval is over. A process's first run also
 * checks every client with a recent bounce or complaint, since the marks of a process that was
 * killed are gone with it. Clients idle for an interval are forgotten.
 */
export async function runPendingHealthChecks(app: AppContext): Promise<{ checked: number }> {
  const s = stateOf(app)
  const now = app.clock.now()
  if (!s.swept) {
    s.swept = true
    for (const id of await recentlyHit(app, now))
      if (!s.clients.has(id)) s.clients.set(id, { lastRun: Number.NEGATIVE_INFINITY, pending: true })
  }
  let checked = 0
  for (const [id, c] of s.clients) {
    if (now - c.lastRun < HEALTH_CHECK_INTERVAL_MS) continue
    if (!c.pending) {
      s.clients.delete(id)
      continue
    }
    await checkSendingHealth(app, id, now)
    // Noted once the job's transaction commits: rolled back (or run again after losing a race
    // with another process), the check is still pending.
    afterCommit(() => {
      c.lastRun = now
      c.pending = false
    })
    checked++
  }
  return { checked }
}
