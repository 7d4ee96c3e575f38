import { eq } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { rebuildRollups } from '../../db/rollups'
import { clients } from '../../db/schema'
import { invalidField } from '../../errors'
import { parseId } from '../../lib/ids'

/**
 * Recomputes the rollups from the messages (of one client, or every client) in the verb's
 * transaction: what the event writers added one by one, in one pass. For recovery, and after an
 * import of historical data.
 */
export async function rebuild(ctx: Ctx, requested: string | undefined) {
  let clientId: string | null = ctx.actor.clientId
  if (clientId === null && requested !== undefined) {
    clientId = parseId(requested)
    if (
      !clientId ||
      !(await ctx.db.select({ id: clients.id }).from(clients).where(eq(clients.id, clientId)).limit(1))[0]
    )
      throw invalidField('client_id', 'no such client')
  }
  const started = performance.now()
  const rows = await rebuildRollups(ctx, clientId)
  return { client_id: clientId, rows, duration_ms: Math.round(performance.now() - started) }
}
