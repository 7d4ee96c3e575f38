import { Type as t } from '@sinclair/typebox'
import { SegmentMatch } from '../../services/segments/inputs'
import {
  ACTIVITY_EVENTS,
  DATE_OPERATORS,
  MAX_SEGMENT_VALUES,
  TEXT_FIELDS,
  TEXT_OPERATORS,
} from '../../services/segments/rules'
import {
  createSegmentVerb,
  deleteSegmentVerb,
  getSegmentVerb,
  listSegmentsVerb,
  segmentContactsVerb,
  updateSegmentVerb,
} from '../../services/segments/verbs'
import { DateTime, dataOf, pageOf, Uuid } from '../../services/verbs/schemas'
import { ID_PATTERN, named } from '../openapi/schemas'
import { route } from '../rest/define-operation'
import { Contact } from './contacts'

// Segment rules as the document describes them. The verbs check the outer shape
// and src/services/segments/rules.ts checks each rule, naming the failing member; the document
// spells out the same fields, operators and values so generated clients type them.

const literals = (values: readonly string[]) => t.Union(values.map((v) => t.Literal(v)))
const Scalar = t.Union([t.String(), t.Number(), t.Boolean()])
const CustomField = t.String({ pattern: '^custom\\..{1,64}$', description: 'custom.<key>: a custom field' })
const ContactField = t.Union([literals(TEXT_FIELDS), CustomField])
const DateField = t.Union([t.Literal('created_at'), CustomField])
const only = (ops: readonly string[], keep: readonly string[]) =>
  literals(ops.filter((o) => keep.includes(o)))
const Days = t.Integer({ minimum: 1, maximum: 36500 })
const rule = (name: string, description: string, members: Parameters<typeof t.Object>[0]) =>
  named(name, t.Object(members, { description, additionalProperties: false }))

const SegmentRule = named(
  'SegmentRule',
  t.Union(
    [
      rule('SegmentCompareRule', 'Compares a contact field (case-insensitive for text)', {
        field: ContactField,
        operator: only(TEXT_OPERATORS, [
          'eq',
          'neq',
          'contains',
          'not_contains',
          'starts_with',
          'ends_with',
          'gt',
          'gte',
          'lt',
          'lte',
        ]),
        value: Scalar,
      }),
      rule('SegmentInRule', 'The field is (not) one of the values', {
        field: ContactField,
        operator: only(TEXT_OPERATORS, ['in', 'not_in']),
        value: t.Array(Scalar, { minItems: 1, maxItems: 1000 }),
      }),
      rule('SegmentExistsRule', 'The field is set (not null, not empty) or not', {
        field: ContactField,
        operator: only(TEXT_OPERATORS, ['exists', 'not_exists']),
        value: t.Optional(t.Unknown({ description: 'Ignored' })),
      }),
      rule('SegmentDateRule', 'created_at (or a custom date) against an ISO 8601 date-time', {
        field: DateField,
        operator: only(DATE_OPERATORS, ['before', 'after', 'gt', 'gte', 'lt', 'lte']),
        value: t.String({ format: 'date-time' }),
      }),
      rule('SegmentRecentRule', 'created_at (or a custom date) within the last N days', {
        field: DateField,
        operator: t.Literal('within_last_days'),
        value: Days,
      }),
      rule('SegmentListRule', 'Member (or not) of any of the lists', {
        field: t.Literal('list'),
        operator: literals(['in', 'not_in']),
        value: t.Array(t.String({ pattern: ID_PATTERN }), { minItems: 1, maxItems: 1000 }),
      }),
      rule('SegmentEventRule', 'Activity: the contact has (or has not) had the event', {
        field: t.Literal('event'),
        event: literals(Object.keys(ACTIVITY_EVENTS)),
        operator: literals(['has', 'has_not']),
        campaign_id: t.Optional(
          t.String({ pattern: ID_PATTERN, description: 'Only events of this campaign' }),
        ),
        within_days: t.Optional(Days),
        min_count: t.Optional(t.Integer({ minimum: 1, maximum: 1_000_000 })),
      }),
    ],
    { description: '{field, operator, value}, or an activity rule {field: "event", event, operator, …}' },
  ),
)
const SegmentRuleGroups = t.Array(
  named(
    'SegmentRuleGroup',
    t.Object(
      { match: SegmentMatch, rules: t.Array(SegmentRule, { minItems: 1, maxItems: 50 }) },
      { additionalProperties: false },
    ),
  ),
  {
    minItems: 1,
    maxItems: 20,
    description: `Groups joined by the segment's match; at most ${MAX_SEGMENT_VALUES} values in all`,
  },
)

const Segment = named(
  'Segment',
  t.Object({
    id: Uuid,
    client_id: Uuid,
    name: t.String(),
    match: named('SegmentMatch', SegmentMatch),
    rule_groups: SegmentRuleGroups,
    estimated_size: t.Union([t.Integer(), t.Null()]),
    estimated_at: t.Union([DateTime, t.Null()]),
    created_at: DateTime,
    updated_at: DateTime,
  }),
)

const tag = 'Segments'
const ITEM = '/api/v1/segments/{id}'

export const segmentOperations = [
  route(listSegmentsVerb, {
    id: 'listSegments',
    method: 'GET',
    path: '/api/v1/segments',
    tag,
    summary: 'List segments',
    query: ['limit', 'cursor', 'client_id'],
    answer: 'as-is',
    response: pageOf(Segment),
  }),
  route(createSegmentVerb, {
    id: 'createSegment',
    method: 'POST',
    path: '/api/v1/segments',
    tag,
    summary: 'Create a dynamic segment; estimated_size is computed at once',
    query: ['client_id'],
    documented: { rule_groups: SegmentRuleGroups },
    response: dataOf(Segment),
  }),
  route(getSegmentVerb, {
    id: 'getSegment',
    method: 'GET',
    path: ITEM,
    tag,
    summary: 'Get a segment',
    response: dataOf(Segment),
  }),
  route(updateSegmentVerb, {
    id: 'updateSegment',
    method: 'PATCH',
    path: ITEM,
    tag,
    summary: 'Update a segment (estimated_size recomputed)',
    documented: { rule_groups: SegmentRuleGroups },
    response: dataOf(Segment),
  }),
  route(deleteSegmentVerb, {
    id: 'deleteSegment',
    method: 'DELETE',
    path: ITEM,
    tag,
    summary: 'Delete a segment',
    response: dataOf(t.Object({ id: Uuid, deleted: t.Boolean() })),
  }),
  route(segmentContactsVerb, {
    id: 'listSegmentContacts',
    method: 'GET',
    path: `${ITEM}/contacts`,
    tag,
    summary: 'Contacts the segment matches now (preview)',
    query: ['limit', 'cursor'],
    answer: 'as-is',
    response: pageOf(Contact),
  }),
]
