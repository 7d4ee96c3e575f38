import { type Static, Type as t } from '@sinclair/typebox'
import { MESSAGE_STATUSES } from '../../lib/enums'
import { pageQueryMembers, RecordId, strict } from '../verbs/schemas'

// What the message verbs take: one schema per input, shared by every door.

export const MessageStatus = t.Union(MESSAGE_STATUSES.map((s) => t.Literal(s)))

export const ListMessagesInput = t.Object(
  {
    ...pageQueryMembers,
    client_id: t.Optional(t.String()),
    campaign_id: t.Optional(t.String()),
    contact_id: t.Optional(t.String()),
    status: t.Optional(MessageStatus),
  },
  strict,
)
export type ListMessagesQuery = Static<typeof ListMessagesInput>

export const MessageRef = t.Object({ id: RecordId }, strict)
