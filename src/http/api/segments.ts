import { Type as t } from '@sinclair/typebox'
import {
  createSegment,
  deleteSegment,
  getSegment,
  listSegments,
  segmentContacts,
  updateSegment,
} from '../../services/segments/manage'
import type { RuleGroup } from '../../services/segments/rules'
import {
  ClientPageQuery,
  CreateQuery,
  DateTime,
  dataOf,
  Name,
  PageQuery,
  pageOf,
  strict,
  Uuid,
} from '../../services/verbs/schemas'
import { op } from '../operation'

const Match = t.Union([t.Literal('all'), t.Literal('any')])
const Rule = t.Record(t.String(), t.Unknown(), {
  description:
    '{field, operator, value} or {field: "event", event, operator: has|has_not, campaign_id?, within_days?, min_count?}',
})
const RuleGroups = t.Array(
  t.Object({ match: Match, rules: t.Array(Rule, { minItems: 1, maxItems: 50 }) }, strict),
  {
    minItems: 1,
    maxItems: 20,
  },
)
const Segment = t.Object({
  id: Uuid,
  client_id: Uuid,
  name: t.String(),
  match: Match,
  rule_groups: t.Array(t.Unknown()),
  estimated_size: t.Union([t.Integer(), t.Null()]),
  estimated_at: t.Union([DateTime, t.Null()]),
  created_at: DateTime,
  updated_at: DateTime,
})
const SegmentInput = t.Object({ name: Name, match: t.Optional(Match), rule_groups: RuleGroups }, strict)
const SegmentPatch = t.Object(
  { name: t.Optional(Name), match: t.Optional(Match), rule_groups: t.Optional(RuleGroups) },
  strict,
)

const tag = 'Segments'
const groups = (g: unknown) => g as RuleGroup[]

export const segmentOperations = [
  op({
    id: 'listSegments',
    method: 'GET',
    path: '/api/v1/segments',
    tag,
    auth: 'any',
    summary: 'List segments',
    query: ClientPageQuery,
    response: pageOf(Segment),
    handle: (ctx, { query }) => listSegments(ctx, query),
  }),
  op({
    id: 'createSegment',
    method: 'POST',
    path: '/api/v1/segments',
    tag,
    auth: 'lists:write',
    summary: 'Create a dynamic segment; estimated_size is computed at once',
    query: CreateQuery,
    body: SegmentInput,
    response: dataOf(Segment),
    handle: (ctx, { body, query }) => ({
      data: createSegment(ctx, { ...body, rule_groups: groups(body.rule_groups) }, query.client_id),
    }),
  }),
  op({
    id: 'getSegment',
    method: 'GET',
    path: '/api/v1/segments/{id}',
    tag,
    auth: 'any',
    summary: 'Get a segment',
    response: dataOf(Segment),
    handle: (ctx, { params }) => ({ data: getSegment(ctx, params.id!) }),
  }),
  op({
    id: 'updateSegment',
    method: 'PATCH',
    path: '/api/v1/segments/{id}',
    tag,
    auth: 'lists:write',
    summary: 'Update a segment (estimated_size recomputed)',
    body: SegmentPatch,
    response: dataOf(Segment),
    handle: (ctx, { params, body }) => ({
      data: updateSegment(ctx, params.id!, {
        ...body,
        rule_groups: body.rule_groups ? groups(body.rule_groups) : undefined,
      }),
    }),
  }),
  op({
    id: 'deleteSegment',
    method: 'DELETE',
    path: '/api/v1/segments/{id}',
    tag,
    auth: 'lists:write',
    destructive: true,
    summary: 'Delete a segment',
    response: dataOf(t.Object({ id: Uuid, deleted: t.Boolean() })),
    handle: (ctx, { params }) => ({ data: deleteSegment(ctx, params.id!) }),
  }),
  op({
    id: 'listSegmentContacts',
    method: 'GET',
    path: '/api/v1/segments/{id}/contacts',
    tag,
    auth: 'any',
    summary: 'Contacts the segment matches now (preview)',
    query: PageQuery,
    response: pageOf(t.Record(t.String(), t.Unknown())),
    handle: (ctx, { params, query }) => segmentContacts(ctx, params.id!, query),
  }),
]
