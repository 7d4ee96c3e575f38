import { type Static, Type as t } from '@sinclair/typebox'
import { ENROLLMENT_STATUSES, JOURNEY_STATUSES } from '../../lib/enums'
import { enrollInput, listEnrollmentsInput, listFlowsInput } from '../flows/inputs'
import { Name, OwningClient, RecordId, strict } from '../verbs/schemas'

// What the journey verbs take, shared by every door. A node's members depend on its type, so
// the schema fixes only the outer shape; ./graph.ts checks each node and names it in the 422.

export const JourneyStatus = t.Union(JOURNEY_STATUSES.map((s) => t.Literal(s)))
export const EnrollmentStatus = t.Union(ENROLLMENT_STATUSES.map((s) => t.Literal(s)))

const Node = t.Record(t.String(), t.Unknown(), {
  description:
    '{id, type, next?, ...members of its type}; types: trigger, send, wait, wait_for_event, condition, split, update_contact, add_to_list, remove_from_list, webhook, goal, exit',
})
export const Nodes = t.Array(Node, { maxItems: 200 })

const journeyFields = {
  name: Name,
  nodes: t.Optional(Nodes),
  allow_reentry: t.Optional(
    t.Boolean({ description: 'A contact who was in the journey may enter again (default false)' }),
  ),
}
const JourneyFields = t.Object(journeyFields, strict)
export type JourneyInput = Static<typeof JourneyFields>

export const CreateJourneyInput = t.Object({ client_id: OwningClient, ...journeyFields }, strict)
export const UpdateJourneyInput = t.Object({ id: RecordId, ...t.Partial(JourneyFields).properties }, strict)
export type JourneyPatch = Omit<Static<typeof UpdateJourneyInput>, 'id'>

export const ListJourneysInput = listFlowsInput(JourneyStatus)
export type ListJourneysQuery = Static<typeof ListJourneysInput>

export const JourneyRef = t.Object({ id: RecordId }, strict)

export const EnrollInput = enrollInput({})

export const ListEnrollmentsInput = listEnrollmentsInput(EnrollmentStatus)
export type ListEnrollmentsQuery = Omit<Static<typeof ListEnrollmentsInput>, 'id'>

// The portal's node editor changes one node at a time (./node-verbs.ts). `expected_updated_at`
// is the journey's updated_at the editor's form was drawn from: a later change answers 409.
const ExpectedUpdatedAt = t.Optional(
  t.String({ format: 'date-time', description: "The journey's updated_at when the form was drawn" }),
)
export const PutJourneyNodeInput = t.Object(
  {
    id: RecordId,
    node: Node,
    expected_updated_at: ExpectedUpdatedAt,
    must_be_new: t.Optional(t.Boolean({ description: 'Refuse to replace a node with the same id' })),
  },
  strict,
)
export const DeleteJourneyNodeInput = t.Object(
  {
    id: RecordId,
    node_id: t.String({ minLength: 1, maxLength: 64 }),
    expected_updated_at: ExpectedUpdatedAt,
  },
  strict,
)
