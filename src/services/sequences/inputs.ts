import { type Static, Type as t } from '@sinclair/typebox'
import { CAMPAIGN_CHANNELS, SEQUENCE_ENROLLMENT_STATUSES, SEQUENCE_STATUSES } from '../../lib/enums'
import { enrollInput, listEnrollmentsInput, listFlowsInput } from '../flows/inputs'
import { idRef, Name, Nullable, OwningClient, RecordId, strict, Text } from '../verbs/schemas'

// What the sequence verbs take, shared by every door. The schema fixes each step's shape; the
// checks that need the database or parsing (templates of this client, content that renders,
// durations) are in ./steps.ts and name `steps[i].member` in the 422 as the schema does.

export const SequenceStatus = t.Union(SEQUENCE_STATUSES.map((s) => t.Literal(s)))
export const SequenceEnrollmentStatus = t.Union(SEQUENCE_ENROLLMENT_STATUSES.map((s) => t.Literal(s)))

const TimeOfDay = t.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  description: 'HH:MM, 24-hour',
  'x-pattern-message': 'must be a time of day HH:MM, 00:00 to 23:59',
})

export const Delay = t.Union(
  [
    t.String({ maxLength: 64, description: 'ISO 8601 duration: P2D, PT4H, PT30S' }),
    t.Object(
      {
        days: t.Optional(t.Integer({ minimum: 0, maximum: 365 })),
        hours: t.Optional(t.Integer({ minimum: 0, maximum: 10_000 })),
        minutes: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000 })),
      },
      // {} is no wait anyone meant to write: a typo'd or emptied delay is refused.
      { ...strict, minProperties: 1 },
    ),
  ],
  { description: 'The wait before the step (after enrollment for the first): P2D or {days, hours, minutes}' },
)

export const Step = t.Object(
  {
    channel: t.Optional(t.Union(CAMPAIGN_CHANNELS.map((c) => t.Literal(c)))),
    template_id: t.Optional(Nullable(idRef('template'))),
    subject: t.Optional(Nullable(t.String({ maxLength: 998 }))),
    body_html: t.Optional(Nullable(Text(512 * 1024))),
    body_text: t.Optional(Nullable(Text(128 * 1024))),
    delay: t.Optional(Delay),
  },
  strict,
)
export type StepInput = Static<typeof Step>
export const Steps = t.Array(Step, { maxItems: 50 })

export const SendingWindow = t.Object(
  {
    days: t.Array(t.Integer({ minimum: 1, maximum: 7 }), {
      minItems: 1,
      maxItems: 7,
      description: 'ISO weekdays: 1 Monday … 7 Sunday',
    }),
    start: TimeOfDay,
    end: TimeOfDay,
  },
  strict,
)

export const Settings = t.Object(
  {
    stop_on_reply: t.Optional(t.Boolean({ description: 'A reply stops the contact’s run (default true)' })),
    sending_window: t.Optional(Nullable(SendingWindow)),
    daily_limit: t.Optional(
      Nullable(t.Integer({ minimum: 1, maximum: 100_000, description: 'Messages a day per sender' })),
    ),
  },
  strict,
)
export type SettingsInput = Static<typeof Settings>

const sequenceFields = {
  name: Name,
  steps: t.Optional(Steps),
  settings: t.Optional(Settings),
  sender_id: t.Optional(Nullable(idRef('sender'))),
}
const SequenceFields = t.Object(sequenceFields, strict)
export type SequenceInput = Static<typeof SequenceFields>

export const CreateSequenceInput = t.Object({ client_id: OwningClient, ...sequenceFields }, strict)
export const UpdateSequenceInput = t.Object({ id: RecordId, ...t.Partial(SequenceFields).properties }, strict)
export type SequencePatch = Omit<Static<typeof UpdateSequenceInput>, 'id'>

export const ListSequencesInput = listFlowsInput(SequenceStatus)
export type ListSequencesQuery = Static<typeof ListSequencesInput>

export const SequenceRef = t.Object({ id: RecordId }, strict)

export const EnrollSequenceInput = enrollInput({ list_id: t.Optional(idRef('list')) })
export type EnrollSequenceBody = Omit<Static<typeof EnrollSequenceInput>, 'id'>

export const ListSequenceEnrollmentsInput = listEnrollmentsInput(SequenceEnrollmentStatus)
export type ListSequenceEnrollmentsQuery = Omit<Static<typeof ListSequenceEnrollmentsInput>, 'id'>

export const StopEnrollmentInput = t.Object({ id: RecordId, contact_id: RecordId }, strict)
