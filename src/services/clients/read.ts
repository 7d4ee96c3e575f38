import { eq, type SQL, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import type { Db } from '../../db/client'
import { type PageRequest, paginate } from '../../db/paginate'
import { clients } from '../../db/schema'
import { notFound } from '../../errors'
import { presentClient } from './present'

/** A tenant key sees only its own client; a platform-wide key sees them all. */
function visibleClients(ctx: Ctx): SQL | undefined {
  return ctx.actor.clientId ? eq(clients.id, ctx.actor.clientId) : undefined
}

// The lookup by id is on the hot path of every client read: prepared once per database.
const prepared = new WeakMap<Db, { byId: ReturnType<typeof prepareById> }>()
function prepareById(db: Db) {
  return db
    .select()
    .from(clients)
    .where(eq(clients.id, sql.placeholder('id')))
    .prepare()
}

export function findClientRow(ctx: Ctx, id: string) {
  // A tenant key sees only its own client: anything else is not found, whatever exists.
  if (ctx.actor.clientId !== null && ctx.actor.clientId !== id) throw notFound('Client')
  let statements = prepared.get(ctx.db)
  if (!statements) {
    statements = { byId: prepareById(ctx.db) }
    prepared.set(ctx.db, statements)
  }
  const row = statements.byId.get({ id })
  if (!row) throw notFound('Client')
  return row
}

export function getClient(ctx: Ctx, id: string) {
  return presentClient(findClientRow(ctx, id))
}

export function listClients(ctx: Ctx, page: PageRequest) {
  return paginate(ctx.db, ctx.secretKey, clients, clients.id, visibleClients(ctx), page, presentClient)
}
