import { and, eq } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { contacts, forms, lists } from '../../db/schema'
import { inTransaction } from '../../db/transaction'
import { type ConfirmClaims, confirmKey, decodeConfirmToken } from '../../lib/confirm-token'
import type { ConsentOrigin } from '../consents/record'
import { confirmMemberships } from '../lists/membership'
import { isSuppressed } from '../suppressions/check'

// A confirmation link followed: the contact's unconfirmed memberships of the form's lists (or
// the one list) become confirmed. A second click finds nothing left to confirm and shows the
// same page. A token that does not verify, has expired or names what is gone is no link at all.

export const CONFIRM_TTL_MS = 7 * 24 * 60 * 60 * 1000

export interface ConfirmOutcome {
  clientId: string
  /** Where the person goes next (the form's confirmed_url), or null for Herald's page. */
  redirect: string | null
  /** The lists confirmed by this click (none on a repeat). */
  confirmed: string[]
}

interface Target {
  clientId: string
  listIds: string[]
  redirect: string | null
  origin: ConsentOrigin
}

async function targetOf(
  app: AppContext,
  claims: ConfirmClaims,
  who: Pick<ConsentOrigin, 'ip' | 'userAgent'>,
): Promise<Target | null> {
  if (claims.via === 'list') {
    const list = (
      await app.db
        .select({ clientId: lists.clientId })
        .from(lists)
        .where(eq(lists.id, claims.sourceId))
        .limit(1)
    )[0]
    if (!list) return null
    // Members added by the API and confirmed by the person: the subscription's door was the API.
    return {
      clientId: list.clientId,
      listIds: [claims.sourceId],
      redirect: null,
      origin: { source: 'api', ...who },
    }
  }
  const form = (await app.db.select().from(forms).where(eq(forms.id, claims.sourceId)).limit(1))[0]
  if (!form) return null
  return {
    clientId: form.clientId,
    listIds: form.listIds,
    redirect: form.confirmedUrl,
    origin: { source: 'form', formId: form.id, consentText: form.consentText, ...who },
  }
}

export async function confirmByToken(
  app: AppContext,
  token: string,
  who: { ip: string; userAgent: string | null },
): Promise<ConfirmOutcome | null> {
  const claims = decodeConfirmToken(confirmKey(app.secretKey), token)
  const now = app.clock.now()
  if (!claims || now - claims.issuedAt > CONFIRM_TTL_MS || claims.issuedAt > now + 60_000) return null
  const target = await targetOf(app, claims, who)
  if (!target) return null
  const contact = (
    await app.db
      .select({ email: contacts.email, status: contacts.status })
      .from(contacts)
      .where(and(eq(contacts.id, claims.contactId), eq(contacts.clientId, target.clientId)))
      .limit(1)
  )[0]
  if (!contact) return null
  // Someone who has opted out (or is suppressed) since is not subscribed again by an old link.
  const reachable =
    contact.status === 'subscribed' && !(await isSuppressed(app.db, target.clientId, contact.email))
  const confirmed = reachable
    ? await inTransaction(
        app.sqlite,
        async () => await confirmMemberships(app, claims.contactId, target.listIds, now, target.origin),
      )
    : []
  return { clientId: target.clientId, redirect: target.redirect, confirmed }
}
