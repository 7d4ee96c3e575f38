import { and, count, eq, gt, inArray, lt, type SQL } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { loginFailures, loginLocks, users } from '../../db/schema'
import { inTransaction } from '../../db/transaction'
import { addressGroup } from '../../lib/ip-address'
import { verifyPassword } from '../users/passwords'

// Portal sign-in lockout. 10 failed attempts within 15 minutes for one email from one address
// lock that pair for 15 minutes: an attacker's address locks itself, never the owner signing in
// from elsewhere (nor the other users behind the same address). 30 failures from one address,
// whatever the emails, lock the address (a password spray). Failures for one email from every
// address (50 within 15 minutes: at least five addresses) slow that email to one attempt a minute,
// so a distributed guess stays slow. Addresses count by their IPv6 /64. A locked attempt is
// refused before the password is checked, so a locked account cannot be probed. Times come from
// the context clock.

export const WINDOW_MS = 15 * 60 * 1000
export const LOCK_MS = 15 * 60 * 1000
/** Failures for one email from one address before that pair is locked. */
export const MAX_FAILURES = 10
/** Failures from one address, whatever the emails, before the address is locked. */
export const MAX_ADDRESS_FAILURES = 30
/** Failures for one email, from every address, before each further one makes it wait. */
export const EMAIL_BACKOFF_AFTER = 50
export const EMAIL_BACKOFF_MS = 60 * 1000

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

const subjects = (email: string, ip: string) => [`pair:${ip} ${email}`, `ip:${ip}`, `email:${email}`]

/** The latest lock on this email, this address, or the two together still in force, or null. */
export async function lockedUntil(app: AppContext, email: string, ip: string): Promise<number | null> {
  const now = app.clock.now()
  const rows = await app.db
    .select({ until: loginLocks.until })
    .from(loginLocks)
    .where(and(inArray(loginLocks.subject, subjects(email, addressGroup(ip))), gt(loginLocks.until, now)))
  return rows.length ? Math.max(...rows.map((r) => r.until)) : null
}

async function recordFailure(app: AppContext, email: string, ip: string): Promise<void> {
  const now = app.clock.now()
  await inTransaction(app.sqlite, async () => {
    // Old failures and expired locks go here, so neither table grows without bound.
    await app.db.delete(loginFailures).where(lt(loginFailures.at, now - WINDOW_MS))
    await app.db.delete(loginLocks).where(lt(loginLocks.until, now))
    await app.db.insert(loginFailures).values({ email, ip, at: now })
    const since = gt(loginFailures.at, now - WINDOW_MS)
    const failures = async (where: SQL | undefined) =>
      (await app.db.select({ n: count() }).from(loginFailures).where(and(where, since)).limit(1))[0]?.n ?? 0
    const lock = async (subject: string, ms: number) =>
      await app.db
        .insert(loginLocks)
        .values({ subject, until: now + ms })
        .onConflictDoUpdate({ target: loginLocks.subject, set: { until: now + ms } })
    const [pair, address, anyAddress] = subjects(email, ip)
    if ((await failures(and(eq(loginFailures.email, email), eq(loginFailures.ip, ip)))) >= MAX_FAILURES)
      await lock(pair!, LOCK_MS)
    if ((await failures(eq(loginFailures.ip, ip))) >= MAX_ADDRESS_FAILURES) await lock(address!, LOCK_MS)
    if ((await failures(eq(loginFailures.email, email))) >= EMAIL_BACKOFF_AFTER)
      await lock(anyAddress!, EMAIL_BACKOFF_MS)
  })
}

export async function attemptLogin(
  app: AppContext,
  rawEmail: string,
  password: string,
  address: string,
): Promise<LoginOutcome> {
  // U+0000 and unpaired surrogates become U+FFFD: no user's email holds them, and PostgreSQL
  // could not compare or store them (the failure is counted under the email as it reads then).
  const email = rawEmail.trim().toLowerCase().slice(0, 254).replaceAll('\u0000', '\ufffd').toWellFormed()
  const ip = addressGroup(address)
  const until = await lockedUntil(app, email, ip)
  if (until !== null) return { ok: false, reason: 'locked', until }
  const user = email
    ? (
        await app.db
          .select({ id: users.id, hash: users.passwordHash })
          .from(users)
          .where(eq(users.email, email))
          .limit(1)
      )[0]
    : undefined
  const ok = await verifyPassword(password.slice(0, 200), user?.hash ?? (await decoyHash()))
  if (user && ok) {
    // A success clears this address's count for this email: not the email's count from other
    // addresses (a distributed guess keeps its back-off), nor the address's (a spray goes on counting).
    await app.db.delete(loginFailures).where(and(eq(loginFailures.email, email), eq(loginFailures.ip, ip)))
    return { ok: true, userId: user.id }
  }
  await recordFailure(app, email, ip)
  const lockedNow = await lockedUntil(app, email, ip)
  return lockedNow !== null
    ? { ok: false, reason: 'locked', until: lockedNow }
    : { ok: false, reason: 'invalid' }
}
