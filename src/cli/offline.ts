import type { Flags } from '../config'
import { loadConfig } from '../config'
import { type Actor, type AppContext, withActor } from '../context'
import { createAppContext } from '../create-context'
import { silentLogger } from '../lib/log'
import { systemActor } from '../services/actors/actor'

/** Commands that work on the data file directly (scripts and recovery), without a server. */
export async function withOfflineContext<T>(flags: Flags, fn: (ctx: AppContext) => T): Promise<T> {
  const ctx = await createAppContext(loadConfig(flags), { log: silentLogger })
  try {
    // Awaited: a callback that returns a promise must finish before the store closes.
    return await fn(ctx)
  } finally {
    await ctx.store.close()
  }
}

export async function withOfflineContextAsync<T>(
  flags: Flags,
  fn: (ctx: AppContext) => Promise<T>,
): Promise<T> {
  const ctx = await createAppContext(loadConfig(flags), { log: silentLogger })
  try {
    return await fn(ctx)
  } finally {
    await ctx.store.close()
  }
}

/** The operator at the console acts as a platform-wide admin. */
export const CONSOLE_ACTOR: Actor = systemActor('console')

export const asConsole = (ctx: AppContext) => withActor(ctx, CONSOLE_ACTOR, 'console')
