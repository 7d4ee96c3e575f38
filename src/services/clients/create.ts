import type { Ctx } from '../../context'
import { clients, nextClientNo } from '../../db/schema'
import { newId } from '../../lib/ids'
import { assertPlatformWide } from './guard'
import type { CreateClientInput } from './inputs'
import { presentClient } from './present'

export async function createClient(ctx: Ctx, input: CreateClientInput) {
  assertPlatformWide(ctx.actor, 'Creating a client')
  const now = ctx.clock.now()
  const row = (
    await ctx.db
      .insert(clients)
      .values({
        id: newId(),
        no: nextClientNo,
        name: input.name,
        industry: input.industry ?? null,
        timezone: input.timezone ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
  )[0]!
  return presentClient(row)
}
