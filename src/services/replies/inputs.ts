import { type Static, Type as t } from '@sinclair/typebox'
import { pageQueryMembers, RecordId, strict } from '../verbs/schemas'

// What the reply verbs take: one schema per input, shared by every door.

export const ListRepliesInput = t.Object(
  {
    ...pageQueryMembers,
    client_id: t.Optional(t.String()),
    campaign_id: t.Optional(t.String()),
    journey_id: t.Optional(t.String()),
    sequence_id: t.Optional(t.String()),
    contact_id: t.Optional(t.String()),
  },
  strict,
)
export type ListRepliesQuery = Static<typeof ListRepliesInput>

export const ReplyRef = t.Object({ id: RecordId }, strict)
