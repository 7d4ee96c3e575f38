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

async function assertUnique(ctx: Ctx, clientId: string, email: string, exceptId?: string) {
  const existing = (
    await ctx.db
      .select({ id: senders.id })
      .from(senders)
      .where(
        and(
          eq(senders.clientId, clientId),
          sql`lower(${senders.fromEmail}) = ${email.toLowerCase()}`,
          exceptId ? ne(senders.id, exceptId) : undefined,
        ),
      )
      .limit(1)
  )[0]
  if (existing)
    throw conflict(`A sender with the address ${email} already exists in this client`, existing.id)
}

async function findSenderRow(ctx: Ctx, id: string) {
  const row = await findVisible(ctx.db, ctx.actor, senders, id)
  if (!row) throw notFound('Sender')
  return row
}

export async function createSender(ctx: Ctx, clientIdParam: string | undefined, input: SenderInput) {
  const clientId = await ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  const domain = domainOf(input.from_email)
  await assertUnique(ctx, clientId, input.from_email)
  const now = ctx.clock.now()
  const row = (
    await ctx.db
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
  )[0]!
  return await presentOne(ctx.db, row)
}

export const getSender = async (ctx: Ctx, id: string) =>
  await presentOne(ctx.db, await findSenderRow(ctx, id))

export async function listSenders(ctx: Ctx, page: PageRequest & { client_id?: string }) {
  const where = listFilter(ctx.actor, senders.clientId, page.client_id)
  const result = await paginate(ctx.db, ctx.secretKey, senders, senders.id, where, page, (row) => row)
  const verified = await verifiedDomainsFor(ctx.db, result.data)
  return { data: result.data.map((row) => presentSender(row, verified)), pagination: result.pagination }
}

export async function updateSender(ctx: Ctx, id: string, input: Partial<SenderInput>) {
  const current = await findSenderRow(ctx, id)
  const fromEmail = input.from_email ?? current.fromEmail
  const domain = input.from_email === undefined ? current.domain : domainOf(fromEmail)
  if (input.from_email !== undefined) await assertUnique(ctx, current.clientId, fromEmail, current.id)
  const row = (
    await ctx.db
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
  )[0]!
  return await presentOne(ctx.db, row)
}

export async function deleteSender(ctx: Ctx, id: string) {
  const row = await findSenderRow(ctx, id)
  await ctx.db.delete(senders).where(eq(senders.id, row.id))
  return { id: row.id, client_id: row.clientId, deleted: true as const }
}
