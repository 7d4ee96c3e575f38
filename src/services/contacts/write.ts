import { and, eq, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { DIALECT } from '../../db/dialect'
import { rawRun } from '../../db/raw'
import { clients, consents, contacts, events } from '../../db/schema'
import { findVisible, ownerForCreate } from '../../db/tenant'
import { conflict, type FieldError, notFound, validationFailed } from '../../errors'
import { newId } from '../../lib/ids'
import { consentSourceOf, recordConsents } from '../consents/record'
import { assertListsOfClient } from '../lists/members'
import { addMembers, removeFromAllLists } from '../lists/membership'
import { bumpContactCount } from './counts'
import type { ContactInput, ContactPatch } from './inputs'
import { checkCustomFields, normalizeContactFields } from './normalize'
import { presentContact } from './present'
import { contactsHighWater, indexContactsAfter } from './search-index'
import { countUnreachableAfter } from './unreachable'
import { recordUnsubscribe } from './unsubscribe'

/** The client's clients.no, the head of contacts' unique (client_no, lower(email)) key. */
export async function clientNoOf(ctx: Pick<Ctx, 'db'>, clientId: string): Promise<number> {
  const row = (
    await ctx.db.select({ no: clients.no }).from(clients).where(eq(clients.id, clientId)).limit(1)
  )[0]
  if (!row) throw notFound('Client')
  return row.no
}

// Spelled on client_no so it is answered by the unique key's index.
export async function findByEmail(ctx: Pick<Ctx, 'db'>, clientNo: number, email: string) {
  return (
    await ctx.db
      .select({ id: contacts.id, status: contacts.status })
      .from(contacts)
      .where(and(eq(contacts.clientNo, clientNo), sql`lower(${contacts.email}) = lower(${email})`))
      .limit(1)
  )[0]
}

export async function findContactRow(ctx: Ctx, id: string) {
  const row = await findVisible(ctx.db, ctx.actor, contacts, id)
  if (!row) throw notFound('Contact')
  return row
}

export async function createContact(ctx: Ctx, input: ContactInput, clientIdParam?: string) {
  const clientId = await ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  const errors: FieldError[] = []
  const { phone } = normalizeContactFields(input, errors)
  if (input.custom_fields) checkCustomFields(input.custom_fields, 'custom_fields', errors)
  if (errors.length) throw validationFailed(errors)
  const listIds = [...new Set(input.list_ids ?? [])]
  await assertListsOfClient(ctx.db, clientId, listIds, 'list_ids')
  const clientNo = await clientNoOf(ctx, clientId)
  const existing = await findByEmail(ctx, clientNo, input.email)
  if (existing)
    throw conflict(`A contact with email ${input.email} already exists in this client`, existing.id)

  const now = ctx.clock.now()
  const highWater = await contactsHighWater(ctx.sqlite)
  const row = (
    await ctx.db
      .insert(contacts)
      .values({
        id: newId(),
        clientId,
        clientNo,
        email: input.email,
        firstName: input.first_name ?? null,
        lastName: input.last_name ?? null,
        company: input.company ?? null,
        phone: phone ?? null,
        timezone: input.timezone ?? null,
        status: input.status ?? 'subscribed',
        customFields: input.custom_fields ?? {},
        createdAt: now,
        updatedAt: now,
      })
      .returning()
  )[0]!
  await indexContactsAfter(ctx.sqlite, highWater)
  await countUnreachableAfter(ctx.sqlite, clientId, highWater)
  await bumpContactCount(ctx.db, clientId, 1)
  for (const listId of listIds)
    await addMembers(ctx, listId, [row.id], now, { consent: { source: consentSourceOf(ctx.actor) } })
  await ctx.hooks.contactCreated.trigger({ clientId, contactIds: [row.id], at: now })
  return presentContact(row)
}

export async function updateContact(ctx: Ctx, id: string, patch: ContactPatch) {
  const current = await findContactRow(ctx, id)
  const errors: FieldError[] = []
  const { phone } = normalizeContactFields(patch, errors)
  let customFields = current.customFields
  if (patch.custom_fields) {
    // Member-by-member merge; a member set to null is removed.
    customFields = { ...current.customFields }
    for (const [k, v] of Object.entries(patch.custom_fields)) {
      if (v === null) delete customFields[k]
      else customFields[k] = v
    }
    checkCustomFields(customFields, 'custom_fields', errors)
  }
  if (errors.length) throw validationFailed(errors)
  const listIds = [...new Set(patch.list_ids ?? [])]
  await assertListsOfClient(ctx.db, current.clientId, listIds, 'list_ids')
  if (patch.email !== undefined && patch.email.toLowerCase() !== current.email.toLowerCase()) {
    const existing = await findByEmail(ctx, current.clientNo, patch.email)
    if (existing)
      throw conflict(`A contact with email ${patch.email} already exists in this client`, existing.id)
  }
  const now = ctx.clock.now()
  const pick = <T>(value: T | undefined, fallback: T) => (value === undefined ? fallback : value)
  const row = (
    await ctx.db
      .update(contacts)
      .set({
        email: pick(patch.email, current.email),
        firstName: pick(patch.first_name, current.firstName),
        lastName: pick(patch.last_name, current.lastName),
        company: pick(patch.company, current.company),
        phone: phone === undefined ? current.phone : phone,
        timezone: pick(patch.timezone, current.timezone),
        status: pick(patch.status, current.status),
        smsOptOut: pick(patch.sms_opt_out, current.smsOptOut),
        customFields,
        updatedAt: now,
      })
      .where(eq(contacts.id, id))
      .returning()
  )[0]!
  if (patch.status === 'unsubscribed' && current.status !== 'unsubscribed')
    await recordUnsubscribe(ctx, row, {
      source: 'api',
      consent: { source: consentSourceOf(ctx.actor) },
      at: now,
    })
  if (row.smsOptOut !== current.smsOptOut)
    await recordConsents(ctx.db, { source: consentSourceOf(ctx.actor) }, [
      {
        clientId: row.clientId,
        contactId: row.id,
        action: row.smsOptOut ? 'unsubscribed' : 'subscribed',
        at: now,
      },
    ])
  for (const listId of listIds)
    await addMembers(ctx, listId, [row.id], now, { consent: { source: consentSourceOf(ctx.actor) } })
  return presentContact(row)
}

/**
 * GDPR erasure: the contact row and its list memberships go; its events stay (so campaign counts
 * remain right) with the personal members of their data removed. Outbox rows keep their status
 * but lose the address and what was sent; replies lose their text. Queued messages are skipped
 * at send time because the contact is gone.
 */
export async function eraseContact(ctx: Ctx, id: string) {
  const row = await findContactRow(ctx, id)
  const now = ctx.clock.now()
  await removeFromAllLists(ctx.db, id, now)
  await ctx.db
    .update(events)
    .set({
      data:
        DIALECT === 'postgres'
          ? sql`${events.data} - array['email', 'from', 'user_agent', 'subject', 'snippet']`
          : sql`json_remove(${events.data}, '$.email', '$.from', '$.user_agent', '$.subject', '$.snippet')`,
    })
    .where(eq(events.contactId, id))
  await rawRun(
    ctx.db,
    sql`DELETE FROM message_contents WHERE message_seq IN (SELECT seq FROM messages WHERE contact_id = ${id})`,
  )
  await rawRun(ctx.db, sql`UPDATE messages SET to_address = '' WHERE contact_id = ${id}`)
  await rawRun(
    ctx.db,
    sql`UPDATE replies SET from_address = '', subject = NULL, snippet = '', body_text = NULL WHERE contact_id = ${id}`,
  )
  // Consent records hold the person's address, IP and browser: they go with the person.
  await ctx.db.delete(consents).where(eq(consents.contactId, id))
  await ctx.db.delete(contacts).where(eq(contacts.id, id))
  await bumpContactCount(ctx.db, row.clientId, -1)
  return { id: row.id, deleted: true }
}
