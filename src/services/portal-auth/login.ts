import { and, count, eq, gt, inArray, lt } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { loginFailures, loginLocks, users } from '../../db/schema'
import { verifyPassword } from '../users/passwords'

// Portal sign-in (DESIGN §9a): 10 failed attempts for one email, or from one IP, within 15
// minutes lock that email (or IP) for 15 minutes. A locked attempt is refused before the
// password is checked, so a locked account cannot be probed. Times come from the context clock.

export const WINDOW_MS = 15 * 60 * 1000
export const LOCK_MS = 15 * 60 * 1000
export const MAX_FAILURES = 10

export type LoginOutcome =
  | { ok: true; userId: string }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'locked'; until: number }

// A hash to verify against when the email is unknown, so both answers take as long.
let decoy: Promise<string> | null = null
function decoyHash(): Promise<string> {
  decoy ??= Bun.password.hash('herald-decoy-password', { algorithm: 'argon2id' })
  return decoy
}

const subjects = (email: string, ip: string) => [`email:${email}`, `ip:${ip}`]

/** The latest lock on this email or IP still in force, or null. */
export function lockedUntil(app: AppContext, email: string, ip: string): number | null {
  const now = app.clock.now()
  const rows = app.db
    .select({ until: loginLocks.until })
    .from(loginLocks)
    .where(and(inArray(loginLocks.subject, subjects(email, ip)), gt(loginLocks.until, now)))
    .all()
  return rows.length ? Math.max(...rows.map((r) => r.until)) : null
}

function recordFailure(app: AppContext, email: string, ip: string): void {
  const now = app.clock.now()
  app.sqlite.transaction(() => {
    // Old failures and expired locks go here, so neither table grows without bound.
    app.db
      .delete(loginFailures)
      .where(lt(loginFailures.at, now - WINDOW_MS))
      .run()
    app.db.delete(loginLocks).where(lt(loginLocks.until, now)).run()
    app.db.insert(loginFailures).values({ email, ip, at: now }).run()
    const since = now - WINDOW_MS
    const byEmail =
      app.db
        .select({ n: count() })
        .from(loginFailures)
        .where(and(eq(loginFailures.email, email), gt(loginFailures.at, since)))
        .get()?.n ?? 0
    const byIp =
      app.db
        .select({ n: count() })
        .from(loginFailures)
        .where(and(eq(loginFailures.ip, ip), gt(loginFailures.at, since)))
        .get()?.n ?? 0
    const lock = (subject: string) =>
      app.db
        .insert(loginLocks)
        .values({ subject, until: now + LOCK_MS })
        .onConflictDoUpdate({ target: loginLocks.subject, set: { until: now + LOCK_MS } })
        .run()
    if (byEmail >= MAX_FAILURES) lock(`email:${email}`)
    if (byIp >= MAX_FAILURES) lock(`ip:${ip}`)
  })()
}

export async function attemptLogin(
  app: AppContext,
  rawEmail: string,
  password: string,
  ip: string,
): Promise<LoginOutcome> {
  const email = rawEmail.trim().toLowerCase().slice(0, 254)
  const until = lockedUntil(app, email, ip)
  if (until !== null) return { ok: false, reason: 'locked', until }
  const user = email
    ? app.db
        .select({ id: users.id, hash: users.passwordHash })
        .from(users)
        .where(eq(users.email, email))
        .get()
    : undefined
  const ok = await verifyPassword(password.slice(0, 200), user?.hash ?? (await decoyHash()))
  if (user && ok) {
    // A success clears this email's count (not the IP's: one good password must not reset a spray).
    app.db.delete(loginFailures).where(eq(loginFailures.email, email)).run()
    return { ok: true, userId: user.id }
  }
  recordFailure(app, email, ip)
  const lockedNow = lockedUntil(app, email, ip)
  return lockedNow !== null
    ? { ok: false, reason: 'locked', until: lockedNow }
    : { ok: false, reason: 'invalid' }
}
