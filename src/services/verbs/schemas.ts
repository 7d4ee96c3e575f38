import { type TSchema, Type as t } from '@sinclair/typebox'
import { ID_PREFIXES, type IdKind, notAnIdMessage } from '../../lib/ids'
import { NAME_PATTERN } from '../../lib/validate'

// Shared schema pieces: every collection, error and id in the API is described once here.

export const Uuid = t.String({
  format: 'uuid',
  description: 'UUID (a prefixed id such as cli_… is also accepted)',
})
const ID_REF_PATTERN =
  '^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[a-z]{3}_[0-9a-fA-F]{32})$'
/**
 * A reference to a record of one kind in a body or query: a UUID or its prefixed form (`lst_…`),
 * both naming the same record; anything else is refused with the forms this kind takes.
 */
export const idRef = (kind: IdKind) =>
  t.String({
    pattern: ID_REF_PATTERN,
    description: `UUID, or the prefixed form (${ID_PREFIXES[kind]}_…) used in webhook payloads`,
    'x-pattern-message': notAnIdMessage(kind),
  })
export const DateTime = t.String({ format: 'date-time' })
/** `T | null`. */
export const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()])
/** Visible text on one line: no control characters, not only white space or invisible characters. */
export const Name = t.String({ minLength: 1, maxLength: 200, pattern: NAME_PATTERN })
/**
 * Multi-line text (bodies, descriptions): tab, newline and carriage return are allowed; other
 * control characters are not. Every other string of an input is one line (src/lib/validate.ts).
 */
export const Text = (maxLength: number) => t.String({ maxLength, 'x-multiline': true })

export const Pagination = t.Object({
  total: t.Integer(),
  limit: t.Integer(),
  has_more: t.Boolean(),
  next_cursor: t.Union([t.String(), t.Null()]),
})

/** Query members of every list operation. */
export const pageQueryMembers = {
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: t.Optional(t.String({ maxLength: 1024 })),
}

/** A list operation that can be narrowed to one client by a platform-wide key. */
export const ClientPageQuery = t.Object(
  { ...pageQueryMembers, client_id: t.Optional(t.String()) },
  { additionalProperties: false },
)
export const PageQuery = t.Object(pageQueryMembers, { additionalProperties: false })
/** The client a create writes into, as a body member (ownerForCreate reads it). */
export const OwningClient = t.Optional(
  t.String({ description: 'Owning client; required with a platform-wide key' }),
)
/** Creates with a platform-wide key name the owning client here. */
export const CreateQuery = t.Object({ client_id: t.Optional(t.String()) }, { additionalProperties: false })

export const dataOf = (schema: TSchema) => t.Object({ data: schema })
export const pageOf = (schema: TSchema) => t.Object({ data: t.Array(schema), pagination: Pagination })

/** A strict body: unknown members are rejected (typos must not pass silently). */
export const strict = { additionalProperties: false } as const

/**
 * The id of the record a verb acts on (a REST path id): a UUID or its prefixed form. `invoke`
 * turns it into the UUID, and an id that is neither is 404 like an unknown record.
 */
export const RecordId = t.String({ 'x-record-id': true, description: 'UUID or prefixed id (cmp_…)' })

/** The input of a verb that takes nothing (scheduled jobs). */
export const NoInput = t.Object({}, strict)
