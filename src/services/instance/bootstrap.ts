import { count } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { FIRST_START_LOCK } from '../../db/postgres/lock-keys'
import { clients, nextClientNo, users } from '../../db/schema'
import { inTransaction } from '../../db/transaction'
import { holdWorkLock } from '../../db/work-lock'
import { randomBase62 } from '../../lib/crypto'
import { newId } from '../../lib/ids'
import { issueApiKey } from '../api-keys/issue'

export interface BootstrapResult {
  clientId: string
  adminEmail: string
  /** Present only when generated (not taken from the environment): printed once. */
  adminPassword: string | null
  apiKey: string | null
}

/**
 * First start on an empty database: a "Default workspace" client, an admin portal user and a
 * platform-wide admin:* key (tier scale). Returns null on every later start, which changes nothing.
 */
export async function bootstrapIfEmpty(ctx: AppContext): Promise<BootstrapResult | null> {
  const empty = async () => ((await ctx.db.select({ n: count() }).from(clients).limit(1))[0]?.n ?? 0) === 0
  if (!(await empty())) return null
  const now = ctx.clock.now()
  const generatedPassword = ctx.config.adminPassword ? null : randomBase62(18)
  const passwordHash = Bun.password.hashSync(ctx.config.adminPassword ?? generatedPassword!)
  return await inTransaction(ctx.sqlite, async () => {
    // Processes starting together on one empty database: the first bootstraps, the others
    // then find its workspace and change nothing.
    await holdWorkLock(ctx.db, FIRST_START_LOCK, 'bootstrap')
    if (!(await empty())) return null
    const clientId = newId()
    await ctx.db
      .insert(clients)
      .values({ id: clientId, no: nextClientNo, name: 'Default workspace', createdAt: now, updatedAt: now })
    await ctx.db
      .insert(users)
      .values({ id: newId(), email: ctx.config.adminEmail, passwordHash, role: 'owner', createdAt: now })
    const { key } = await issueApiKey(ctx.db, now, {
      name: 'Bootstrap admin key',
      scopes: ['admin:*'],
      clientId: null,
      tier: 'scale',
      key: ctx.config.bootstrapApiKey ?? undefined,
    })
    return {
      clientId,
      adminEmail: ctx.config.adminEmail,
      adminPassword: generatedPassword,
      apiKey: ctx.config.bootstrapApiKey ? null : key,
    }
  })
}
