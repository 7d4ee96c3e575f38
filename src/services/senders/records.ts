import { and, eq, ne, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { type PageRequest, paginate } from '../../db/paginate'
import { senders } from '../../db/schema'
import { findVisible, listFilter, ownerForCreate } from '../../db/tenant'
import { conflict, invalidField, notFound } from '../../errors'
import { newId } from '../../lib/ids'
import { normalizeDomain } from '../domains/names'
import type { SenderInput } from './inputs'
import { presentOne, presentSender, verifiedDomainsFor } from './present'

function domainOf(email: string): string {
  const domain = normalizeDomain(email.slice(email.lastIndexOf('@') + 1))
  if (!domain)
    throw invalidField('from_email', 'must be an address at a domain name, such as news@example.com')
  return domain
}

function assertUnique(ctx: Ctx, clientId: string, email: string, exceptId?: string) {
  const existing = ctx.db
    .select({ id: senders.id })
    .from(senders)
    .where(
      and(
        eq(senders.clientId, clientId),
        sql`lower(${senders.fromEmail}) = ${email.toLowerCase()}`,
        exceptId ? ne(senders.id, exceptId) : undefined,
      ),
    )
    .get()
  if (existing)
    throw conflict(`A sender with the address ${email} already exists in this client`, existing.id)
}

function findSenderRow(ctx: Ctx, id: string) {
  const row = findVisible(ctx.db, ctx.actor, senders, id)
  if (!row) throw notFound('Sender')
  return row
}

export function createSender(ctx: Ctx, clientIdParam: string | undefined, input: SenderInput) {
  const clientId = ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  const domain = domainOf(input.from_email)
  assertUnique(ctx, clientId, input.from_email)
  const now = ctx.clock.now()
  const row = ctx.db
    .insert(senders)
    .values({
      id: newId(),
      clientId,
      fromEmail: input.from_email,
      fromName: input.from_name,
      replyTo: input.reply_to ?? null,
      domain,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get()
  return presentOne(ctx.db, row)
}

export const getSender = (ctx: Ctx, id: string) => presentOne(ctx.db, findSenderRow(ctx, id))

export function listSenders(ctx: Ctx, page: PageRequest & { client_id?: string }) {
  const where = listFilter(ctx.actor, senders.clientId, page.client_id)
  const result = paginate(ctx.db, ctx.secretKey, senders, senders.id, where, page, (row) => row)
  const verified = verifiedDomainsFor(ctx.db, result.data)
  return { data: result.data.map((row) => presentSender(row, verified)), pagination: result.pagination }
}

export function updateSender(ctx: Ctx, id: string, input: Partial<SenderInput>) {
  const current = findSenderRow(ctx, id)
  const fromEmail = input.from_email ?? current.fromEmail
  const domain = input.from_email === undefined ? current.domain : domainOf(fromEmail)
  if (input.from_email !== undefined) assertUnique(ctx, current.clientId, fromEmail, current.id)
  const row = ctx.db
    .update(senders)
    .set({
      fromEmail,
      domain,
      fromName: input.from_name ?? current.fromName,
      replyTo: input.reply_to === undefined ? current.replyTo : input.reply_to,
      updatedAt: ctx.clock.now(),
    })
    .where(eq(senders.id, current.id))
    .returning()
    .get()
  return presentOne(ctx.db, row)
}

export function deleteSender(ctx: Ctx, id: string) {
  const row = findSenderRow(ctx, id)
  ctx.db.delete(senders).where(eq(senders.id, row.id)).run()
  return { id: row.id, client_id: row.clientId, deleted: true as const }
}
