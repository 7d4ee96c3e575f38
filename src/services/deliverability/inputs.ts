import { type Static, Type as t } from '@sinclair/typebox'
import { pageQueryMembers, strict } from '../verbs/schemas'

export const ScoreInput = t.Object(
  { client_id: t.Optional(t.String({ description: 'Required with a platform-wide key' })) },
  strict,
)

export const ListAlertsInput = t.Object(
  {
    ...pageQueryMembers,
    client_id: t.Optional(t.String()),
    active: t.Optional(t.Boolean({ description: 'true: open alerts only; false: resolved ones only' })),
  },
  strict,
)
export type ListAlertsQuery = Static<typeof ListAlertsInput>
