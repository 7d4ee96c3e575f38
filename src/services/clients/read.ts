import { eq, type SQL } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { type PageRequest, paginate } from '../../db/paginate'
import { perConnection } from '../../db/prepared'
import { rowByKeyStatement } from '../../db/row-by-key'
import { type ClientRow, clients } from '../../db/schema'
import { notFound } from '../../errors'
import { presentClient } from './present'

/** A tenant key sees only its own client; a platform-wide key sees them all. */
function visibleClients(ctx: Ctx): SQL | undefined {
  return ctx.actor.clientId ? eq(clients.id, ctx.actor.clientId) : undefined
}

// The lookup by id is on the hot path of every client read: prepared once per connection, and
// without drizzle's row mapping (the same row; see rowByKeyStatement).
const clientById = perConnection((sqlite) => rowByKeyStatement(sqlite, clients, clients.id))

export async function findClientRow(ctx: Ctx, id: string): Promise<ClientRow> {
  // A tenant key sees only its own client: anything else is not found, whatever exists.
  if (ctx.actor.clientId !== null && ctx.actor.clientId !== id) throw notFound('Client')
  const row = await clientById(ctx.sqlite)(id)
  if (!row) throw notFound('Client')
  return row
}

export async function getClient(ctx: Ctx, id: string) {
  return presentClient(await findClientRow(ctx, id))
}

export async function listClients(ctx: Ctx, page: PageRequest) {
  return await paginate(ctx.db, ctx.secretKey, clients, clients.id, visibleClients(ctx), page, presentClient)
}
