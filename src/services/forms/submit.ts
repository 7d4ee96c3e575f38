import { and, eq, inArray } from 'drizzle-orm'
import { type AppContext, withActor } from '../../context'
import { type FormRow, forms, listMembers, lists } from '../../db/schema'
import { inTransaction } from '../../db/transaction'
import { type FieldError, validationFailed } from '../../errors'
import { parseId } from '../../lib/ids'
import type { ConsentOrigin } from '../consents/record'
import { clientNoOf, createContact, findByEmail } from '../contacts/write'
import { addMembers } from '../lists/membership'
import { isSuppressed } from '../suppressions/check'
import { queueConfirmation } from './confirmation'
import { readSubmission } from './submission'

// A person subscribing through a form's public endpoint. Whoever they are, the answer is the
// same (no one can learn whether an address is known); an address that opted out, bounced,
// complained, was blocked or is suppressed is never subscribed again this way, and nothing is
// sent to it. Everything a submission changes commits in one transaction.

export type { FormRow }

export type SubmitStatus = 'pending' | 'subscribed'

export interface SubmitRequest {
  /** The posted members (form fields, `hp`), as strings. */
  body: Record<string, unknown>
  ip: string
  userAgent: string | null
}

/** An active form by its public id (a UUID or frm_…), or null: unknown and disabled look alike. */
export async function findActiveForm(app: AppContext, ref: string): Promise<FormRow | null> {
  const id = parseId(ref)
  if (!id) return null
  const row = (await app.db.select().from(forms).where(eq(forms.id, id)).limit(1))[0]
  return row?.status === 'active' ? row : null
}

/** The answer every accepted submission gets. */
export const answerOf = (form: FormRow): SubmitStatus => (form.doubleOptIn ? 'pending' : 'subscribed')

/** Subscribes the person; 422 (VALIDATION_FAILED) when the email or a field is unusable. */
export async function submitForm(app: AppContext, form: FormRow, req: SubmitRequest): Promise<SubmitStatus> {
  const errors: FieldError[] = []
  const sub = readSubmission(form.fields, req.body, errors)
  // A bot filled the field people never see: it is told what a person would be, and nothing is kept.
  if (sub.honeypot) return answerOf(form)
  if (errors.length) throw validationFailed(errors)
  const now = app.clock.now()
  const origin: ConsentOrigin = {
    source: 'form',
    formId: form.id,
    ip: req.ip,
    userAgent: req.userAgent,
    consentText: form.consentText,
  }
  const queued = await inTransaction(app.sqlite, async () => {
    if (await isSuppressed(app.db, form.clientId, sub.email)) return false
    const known = await findByEmail(app, await clientNoOf(app, form.clientId), sub.email)
    if (known && known.status !== 'subscribed') return false
    const contactId = known?.id ?? (await createAsForm(app, form, sub.contact))
    const listIds = await listsOf(app, form)
    const status = form.doubleOptIn ? 'unconfirmed' : 'confirmed'
    let joined = false
    for (const listId of listIds)
      joined =
        (await addMembers(app, listId, [contactId], now, { status, revive: true, consent: origin })).length >
          0 || joined
    // Asked again while still unconfirmed: nothing changed, but the person may want the link again.
    if (!form.doubleOptIn || (!joined && !(await awaitsConfirmation(app, contactId, listIds)))) return false
    return await queueConfirmation(
      app,
      {
        via: 'form',
        sourceId: form.id,
        clientId: form.clientId,
        contactId,
        email: sub.email,
        templateId: form.confirmationTemplateId,
      },
      now,
    )
  })
  if (queued) app.workers.wake('send')
  return answerOf(form)
}

/** A new contact, created by the same verb as the API's, acting for the form's client. */
async function createAsForm(app: AppContext, form: FormRow, contact: Parameters<typeof createContact>[1]) {
  const actor = { kind: 'system' as const, id: `form:${form.id}`, clientId: form.clientId, scopes: [] }
  return (await createContact(withActor(app, actor, `form:${form.id}`), contact)).id
}

/** The form's lists that still exist (a list deleted after the form was made is skipped). */
async function listsOf(app: AppContext, form: FormRow): Promise<string[]> {
  if (form.listIds.length === 0) return []
  return (
    await app.db
      .select({ id: lists.id })
      .from(lists)
      .where(and(eq(lists.clientId, form.clientId), inArray(lists.id, form.listIds)))
  ).map((r) => r.id)
}

/** Whether the contact is waiting to confirm any of these lists (else no message is needed). */
async function awaitsConfirmation(app: AppContext, contactId: string, listIds: string[]): Promise<boolean> {
  if (listIds.length === 0) return false
  return (
    (
      await app.db
        .select({ one: listMembers.listId })
        .from(listMembers)
        .where(
          and(
            eq(listMembers.contactId, contactId),
            inArray(listMembers.listId, listIds),
            eq(listMembers.status, 'unconfirmed'),
          ),
        )
        .limit(1)
    )[0] !== undefined
  )
}
