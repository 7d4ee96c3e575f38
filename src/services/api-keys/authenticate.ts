import { eq, sql } from 'drizzle-orm'
import type { AppContext } from '../../context'
import type { Db } from '../../db/client'
import { signalProcesses } from '../../db/postgres/wake-channel'
import { preparedQuery, preparedWrite } from '../../db/prepared-query'
import { apiKeys, clients } from '../../db/schema'

import { sha256Hex } from '../../lib/crypto'
import { type Actor, keyActor } from '../actors/actor'
import { KEY_PREFIX } from './issue'

export type AuthOutcome =
  | { ok: true; actor: Actor }
  | {
      ok: false
      reason: 'unknown' | 'revoked' | 'expired' | 'client_suspended'
      /** What the 401 says instead of the reason's stock message (external OAuth tokens). */
      message?: string
    }

const LAST_USED_EVERY_MS = 60_000
const CACHE_MS = 1000
const CACHE_MAX = 10_000

const epochs = new WeakMap<Db, number>()
const credentialEpoch = (db: Db) => epochs.get(db) ?? 0

/** The signal other processes on a PostgreSQL database receive when credentials change. */
export const CREDENTIALS_SIGNAL = 'credentials'

/** Drops this process's cached look-ups (another process changed a key or a client's status). */
export function forgetCredentials(db: Db): void {
  epochs.set(db, credentialEpoch(db) + 1)
}

/**
 * Call after changing a key or a client's status: cached look-ups are dropped here at once, and
 * in the other processes on a PostgreSQL database when the caller's transaction commits.
 */
export async function credentialsChanged(ctx: Pick<AppContext, 'db' | 'store'>): Promise<void> {
  forgetCredentials(ctx.db)
  if (ctx.store.dialect === 'postgres') await signalProcesses(ctx.db, CREDENTIALS_SIGNAL)
}

/** Looks a presented key up by its SHA-256; `last_used_at` is written at most once a minute. */
export function createAuthenticator(db: Db) {
  const keyByHash = db
    .select({ key: apiKeys, clientStatus: clients.status })
    .from(apiKeys)
    .leftJoin(clients, eq(clients.id, apiKeys.clientId))
    .where(eq(apiKeys.keyHash, sql.placeholder('hash')))
  const byHash = preparedQuery(keyByHash, 'api_key_by_hash')
  const touch = preparedWrite(
    db
      .update(apiKeys)
      .set({ lastUsedAt: sql`${sql.placeholder('now')}` })
      .where(eq(apiKeys.id, sql.placeholder('id'))),
    'api_key_touch',
  )

  // Looked-up keys are remembered for CACHE_MS so a busy key costs no hash and no query per
  // request. Changes made through this process (revoke, suspend) clear the cache at once. On
  // PostgreSQL the change also signals the serving processes, which clear theirs when it commits;
  // on SQLite a revocation by the CLI takes effect within CACHE_MS.
  const cache = new Map<string, { row: Awaited<ReturnType<typeof byHash>>[number] | null; at: number }>()
  let seenEpoch = credentialEpoch(db)

  return async function authenticate(presented: string, now: number): Promise<AuthOutcome> {
    if (!presented.startsWith(KEY_PREFIX)) return { ok: false, reason: 'unknown' }
    const epoch = credentialEpoch(db)
    if (epoch !== seenEpoch || cache.size > CACHE_MAX) {
      cache.clear()
      seenEpoch = epoch
    }
    let entry = cache.get(presented)
    if (!entry || now - entry.at > CACHE_MS || now < entry.at) {
      entry = { row: (await byHash({ hash: sha256Hex(presented) }))[0] ?? null, at: now }
      cache.set(presented, entry)
    }
    const found = entry.row
    if (!found) return { ok: false, reason: 'unknown' }
    const { key, clientStatus } = found
    if (key.revokedAt !== null) return { ok: false, reason: 'revoked' }
    if (key.expiresAt !== null && key.expiresAt <= now) return { ok: false, reason: 'expired' }
    if (clientStatus === 'suspended') return { ok: false, reason: 'client_suspended' }
    if (key.lastUsedAt === null || now - key.lastUsedAt >= LAST_USED_EVERY_MS) {
      await touch({ id: key.id, now })
      key.lastUsedAt = now
    }
    return { ok: true, actor: keyActor(key) }
  }
}

export type Authenticator = ReturnType<typeof createAuthenticator>
