import { eq } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { clients } from '../../db/schema'
import { credentialsChanged } from '../api-keys/authenticate'
import { assertPlatformWide } from './guard'
import type { UpdateClientPatch } from './inputs'
import { presentClient } from './present'
import { findClientRow } from './read'

export async function updateClient(ctx: Ctx, id: string, input: UpdateClientPatch) {
  const current = await findClientRow(ctx, id) // 404 before 403: another tenant's client stays invisible
  assertPlatformWide(ctx.actor, 'Changing a client')
  const row = (
    await ctx.db
      .update(clients)
      .set({
        name: input.name ?? current.name,
        industry: input.industry === undefined ? current.industry : input.industry,
        status: input.status ?? current.status,
        timezone: input.timezone === undefined ? current.timezone : input.timezone,
        updatedAt: ctx.clock.now(),
      })
      .where(eq(clients.id, id))
      .returning()
  )[0]!
  if (row.status !== current.status) await credentialsChanged(ctx) // a suspension stops its keys at once
  return presentClient(row)
}
