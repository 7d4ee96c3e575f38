import { type Static, Type as t } from '@sinclair/typebox'
import { Name, pageQueryMembers, RecordId, strict } from '../verbs/schemas'

// What the segment verbs take: one schema per input, shared by every door. Rules are checked
// and compiled by ./rules.ts; the schema only fixes their outer shape.

export const SegmentMatch = t.Union([t.Literal('all'), t.Literal('any')])
const Rule = t.Record(t.String(), t.Unknown(), {
  description:
    '{field, operator, value} or {field: "event", event, operator: has|has_not, campaign_id?, within_days?, min_count?}',
})
const RuleGroups = t.Array(
  t.Object({ match: SegmentMatch, rules: t.Array(Rule, { minItems: 1, maxItems: 50 }) }, strict),
  {
    minItems: 1,
    maxItems: 20,
  },
)

const segmentFields = { name: Name, match: t.Optional(SegmentMatch), rule_groups: RuleGroups }
const SegmentFields = t.Object(segmentFields, strict)
export type SegmentInput = Static<typeof SegmentFields>

export const ListSegmentsInput = t.Object({ ...pageQueryMembers, client_id: t.Optional(t.String()) }, strict)

export const CreateSegmentInput = t.Object({ client_id: t.Optional(t.String()), ...segmentFields }, strict)

export const UpdateSegmentInput = t.Object(
  {
    id: RecordId,
    name: t.Optional(Name),
    match: t.Optional(SegmentMatch),
    rule_groups: t.Optional(RuleGroups),
  },
  strict,
)

export const SegmentRef = t.Object({ id: RecordId }, strict)

export const SegmentContactsInput = t.Object({ id: RecordId, ...pageQueryMembers }, strict)

/** Unsaved rules to size while editing (portal-only read): the count and a few matches. */
export const EstimateSegmentInput = t.Object(
  { client_id: t.Optional(t.String()), match: t.Optional(SegmentMatch), rule_groups: RuleGroups },
  strict,
)
export type EstimateSegmentInput = Static<typeof EstimateSegmentInput>
