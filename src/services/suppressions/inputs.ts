import { type Static, Type as t } from '@sinclair/typebox'
import { Nullable, pageQueryMembers, strict } from '../verbs/schemas'

// What the suppression verbs take: one schema per input, shared by every door.

export const ListSuppressionsInput = t.Object(
  { ...pageQueryMembers, client_id: t.Optional(t.String()) },
  strict,
)

export const AddSuppressionInput = t.Object(
  {
    client_id: t.Optional(t.String()),
    email: t.String({ format: 'email', maxLength: 254 }),
    // Nullable in the answer, so null is taken as "no reason" (clients send unset members as null).
    reason: t.Optional(Nullable(t.String({ maxLength: 500 }))),
  },
  strict,
)
export type SuppressionFields = Omit<Static<typeof AddSuppressionInput>, 'client_id'>

/** The address as written (a REST path segment, not a record id); matched case-insensitively. */
export const RemoveSuppressionInput = t.Object(
  { email: t.String(), client_id: t.Optional(t.String()) },
  strict,
)

/** Suppressions whose address starts with `query` (portal-only read). */
export const SearchSuppressionsInput = t.Object(
  {
    query: t.String({ minLength: 1, maxLength: 254 }),
    ...pageQueryMembers,
    client_id: t.Optional(t.String()),
  },
  strict,
)
export type SearchSuppressionsInput = Static<typeof SearchSuppressionsInput>
