import { type Static, Type as t } from '@sinclair/typebox'
import { ClientPageQuery, CreateQuery, Name, RecordId, strict } from '../verbs/schemas'

// What the sender verbs take: one schema per input, shared by every door.

const Email = t.String({ format: 'email', maxLength: 254 })

const senderFields = {
  from_email: Email,
  from_name: Name,
  reply_to: t.Optional(t.Union([Email, t.Null()])),
}
const SenderFields = t.Object(senderFields, strict)
export type SenderInput = Static<typeof SenderFields>

export const ListSendersInput = ClientPageQuery

export const CreateSenderInput = t.Object({ ...CreateQuery.properties, ...senderFields }, strict)

export const UpdateSenderInput = t.Object({ id: RecordId, ...t.Partial(SenderFields).properties }, strict)

export const SenderRef = t.Object({ id: RecordId }, strict)
