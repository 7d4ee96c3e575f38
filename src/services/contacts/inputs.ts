import { type Static, Type as t } from '@sinclair/typebox'
import { CONTACT_STATUSES } from '../../lib/enums'
import { pageQueryMembers, RecordId, strict } from '../verbs/schemas'

// What the contact verbs take: one schema per input, shared by every door.

const Str = (max: number) => t.Union([t.String({ maxLength: max }), t.Null()])
/** The statuses a caller may set (bounced and complained come from deliveries). */
export const InputStatus = t.Union([t.Literal('subscribed'), t.Literal('unsubscribed'), t.Literal('blocked')])
export type InputStatus = Static<typeof InputStatus>

export const contactFields = {
  email: t.String({ format: 'email', maxLength: 254 }),
  first_name: t.Optional(Str(200)),
  last_name: t.Optional(Str(200)),
  company: t.Optional(Str(200)),
  phone: t.Optional(Str(64)),
  timezone: t.Optional(t.Union([t.String({ maxLength: 64 }), t.Null()])),
  status: t.Optional(InputStatus),
  custom_fields: t.Optional(
    t.Record(t.String(), t.Unknown(), { description: 'Up to 100 members; key ≤ 64 chars, value ≤ 2 KiB' }),
  ),
  list_ids: t.Optional(t.Array(t.String({ format: 'uuid' }), { maxItems: 100 })),
}
const ContactFields = t.Object(contactFields, strict)
export type ContactInput = Static<typeof ContactFields>
export type ContactPatch = Partial<ContactInput> & { sms_opt_out?: boolean }

export const ListContactsInput = t.Object({ ...pageQueryMembers, client_id: t.Optional(t.String()) }, strict)
export type ListContactsInput = Static<typeof ListContactsInput>

export const CreateContactInput = t.Object({ client_id: t.Optional(t.String()), ...contactFields }, strict)

export const SearchContactsInput = t.Object(
  {
    query: t.String({ minLength: 1, maxLength: 200 }),
    ...pageQueryMembers,
    client_id: t.Optional(t.String()),
  },
  strict,
)
export type SearchContactsInput = Static<typeof SearchContactsInput>

export const ContactRef = t.Object({ id: RecordId }, strict)

/** The portal's contact table: narrowed by status and/or list (portal-only, not a REST operation). */
export const BrowseContactsInput = t.Object(
  {
    ...pageQueryMembers,
    client_id: t.Optional(t.String()),
    status: t.Optional(t.Union(CONTACT_STATUSES.map((s) => t.Literal(s)))),
    list_id: t.Optional(RecordId),
  },
  strict,
)
export type BrowseContactsInput = Static<typeof BrowseContactsInput>

/** One contact's event timeline (portal-only). */
export const ContactActivityInput = t.Object({ id: RecordId, ...pageQueryMembers }, strict)
export type ContactActivityInput = Static<typeof ContactActivityInput>

export const UpdateContactInput = t.Object(
  {
    id: RecordId,
    ...contactFields,
    email: t.Optional(contactFields.email),
    sms_opt_out: t.Optional(
      t.Boolean({ description: 'true: no SMS, voice, WhatsApp or RCS is sent (as after STOP)' }),
    ),
  },
  strict,
)

export const ExportContactsInput = t.Object(
  {
    client_id: t.Optional(t.String()),
    raw: t.Optional(
      t.Boolean({
        description:
          'true: cells exactly as stored, for a round trip. By default a cell starting with = + - @, tab or carriage return (a spreadsheet formula) gets a leading apostrophe',
      }),
    ),
  },
  strict,
)
export type ExportContactsInput = Static<typeof ExportContactsInput>
