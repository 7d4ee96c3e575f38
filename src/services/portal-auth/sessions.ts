import { eq, lt, or } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { portalSessions } from '../../db/schema'
import { randomBase62, sha256Hex } from '../../lib/crypto'
import { loadIdentity, type PortalIdentity } from '../users/access'

// Portal sessions: a random token in the `herald_session` cookie, only its SHA-256
// in SQLite. A session ends after 12 h without a request or 7 days after sign-in, whichever
// comes first. Every time comes from the context's clock, so tests drive expiry.

export const IDLE_MS = 12 * 60 * 60 * 1000
export const ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000
/** last_seen_at is written at most this often: a page view is not a write per request. */
const TOUCH_EVERY_MS = 60 * 1000

export interface Flash {
  kind: 'success' | 'error' | 'info'
  message: string
}

export interface PortalSession {
  tokenHash: string
  csrfToken: string
  workspaceId: string | null
  createdAt: number
  /** When the cookie stops working at the latest (absolute limit), for its Max-Age. */
  expiresAt: number
  /** A message waiting to be shown (taken with takeFlash, so it shows once). */
  pendingFlash: boolean
  user: PortalIdentity
}

export async function createSession(app: AppContext, userId: string, workspaceId: string | null) {
  const token = randomBase62(32)
  const csrfToken = randomBase62(24)
  const now = app.clock.now()
  // Expired sessions of anyone are swept here, at sign-in, rather than by a job.
  await app.db
    .delete(portalSessions)
    .where(or(lt(portalSessions.lastSeenAt, now - IDLE_MS), lt(portalSessions.createdAt, now - ABSOLUTE_MS)))
  await app.db
    .insert(portalSessions)
    .values({ tokenHash: sha256Hex(token), userId, csrfToken, workspaceId, createdAt: now, lastSeenAt: now })
  return { token, csrfToken, expiresAt: now + ABSOLUTE_MS }
}

/** The live session of a cookie token, or null (unknown, idle too long, too old, user gone). */
export async function resolveSession(app: AppContext, token: string): Promise<PortalSession | null> {
  const tokenHash = sha256Hex(token)
  const row = (
    await app.db.select().from(portalSessions).where(eq(portalSessions.tokenHash, tokenHash)).limit(1)
  )[0]
  if (!row) return null
  const now = app.clock.now()
  if (now - row.lastSeenAt >= IDLE_MS || now - row.createdAt >= ABSOLUTE_MS) {
    await app.db.delete(portalSessions).where(eq(portalSessions.tokenHash, tokenHash))
    return null
  }
  const user = await loadIdentity(app.db, row.userId)
  if (!user) return null
  if (now - row.lastSeenAt >= TOUCH_EVERY_MS)
    await app.db
      .update(portalSessions)
      .set({ lastSeenAt: now })
      .where(eq(portalSessions.tokenHash, tokenHash))
  return {
    tokenHash,
    csrfToken: row.csrfToken,
    workspaceId: row.workspaceId,
    createdAt: row.createdAt,
    expiresAt: row.createdAt + ABSOLUTE_MS,
    pendingFlash: row.flash !== null,
    user,
  }
}

export async function destroySession(app: AppContext, tokenHash: string): Promise<void> {
  await app.db.delete(portalSessions).where(eq(portalSessions.tokenHash, tokenHash))
}

export async function setWorkspace(
  app: AppContext,
  tokenHash: string,
  workspaceId: string | null,
): Promise<void> {
  await app.db.update(portalSessions).set({ workspaceId }).where(eq(portalSessions.tokenHash, tokenHash))
}

export async function setFlash(app: AppContext, tokenHash: string, flash: Flash): Promise<void> {
  await app.db
    .update(portalSessions)
    .set({ flash: JSON.stringify(flash) })
    .where(eq(portalSessions.tokenHash, tokenHash))
}

/** The pending flash message, removed as it is read (shown once). */
export async function takeFlash(app: AppContext, tokenHash: string): Promise<Flash | null> {
  const where = eq(portalSessions.tokenHash, tokenHash)
  const row = (
    await app.db.select({ flash: portalSessions.flash }).from(portalSessions).where(where).limit(1)
  )[0]
  if (!row?.flash) return null
  await app.db.update(portalSessions).set({ flash: null }).where(where)
  return JSON.parse(row.flash) as Flash
}
