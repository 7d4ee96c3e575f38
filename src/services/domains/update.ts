import { eq } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { domains } from '../../db/schema'
import type { DomainPatch } from './inputs'
import { findDomainRow } from './read'
import { presentWithProgress } from './warmup'

// A domain's own warm-up switch: off for a domain that arrives with its reputation, on again for
// one that should build it. Send plans are cached a few seconds, so the next batches follow it.
export async function updateDomain(ctx: Ctx, id: string, patch: DomainPatch) {
  const current = await findDomainRow(ctx, id)
  if (patch.warmup === undefined) return await presentWithProgress(ctx, current)
  const row = (
    await ctx.db
      .update(domains)
      .set({ warmup: patch.warmup, updatedAt: ctx.clock.now() })
      .where(eq(domains.id, current.id))
      .returning()
  )[0]!
  return await presentWithProgress(ctx, row)
}
