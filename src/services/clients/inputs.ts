import { type Static, Type as t } from '@sinclair/typebox'
import { Name, Nullable, pageQueryMembers, RecordId, strict } from '../verbs/schemas'

// What the client verbs take: one schema per input, shared by every door.

/**
 * The client's time zone (an extension; IANA name, checked by the verbs' `check`): contacts
 * without one of their own are read in it. Null clears it (UTC).
 */
const ClientTimeZone = t.Optional(Nullable(t.String({ maxLength: 64 })))

export const ClientStatus = t.Union([t.Literal('active'), t.Literal('suspended')])

export const ListClientsInput = t.Object(pageQueryMembers, strict)

export const CreateClientInput = t.Object(
  // industry is nullable in the answer, so null is taken as "none" here too (as in PATCH).
  { name: Name, industry: t.Optional(Nullable(t.String({ maxLength: 200 }))), timezone: ClientTimeZone },
  strict,
)
export type CreateClientInput = Static<typeof CreateClientInput>

export const ClientRef = t.Object({ id: RecordId }, strict)

export const UpdateClientInput = t.Object(
  {
    id: RecordId,
    name: t.Optional(Name),
    industry: t.Optional(t.Union([t.String({ maxLength: 200 }), t.Null()])),
    status: t.Optional(ClientStatus),
    timezone: ClientTimeZone,
  },
  strict,
)
export type UpdateClientPatch = Omit<Static<typeof UpdateClientInput>, 'id'>
