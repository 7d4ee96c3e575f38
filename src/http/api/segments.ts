import { Type as t } from '@sinclair/typebox'
import { SegmentMatch } from '../../services/segments/inputs'
import {
  createSegmentVerb,
  deleteSegmentVerb,
  getSegmentVerb,
  listSegmentsVerb,
  segmentContactsVerb,
  updateSegmentVerb,
} from '../../services/segments/verbs'
import { DateTime, dataOf, pageOf, Uuid } from '../../services/verbs/schemas'
import { route } from '../operation'

const Segment = t.Object({
  id: Uuid,
  client_id: Uuid,
  name: t.String(),
  match: SegmentMatch,
  rule_groups: t.Array(t.Unknown()),
  estimated_size: t.Union([t.Integer(), t.Null()]),
  estimated_at: t.Union([DateTime, t.Null()]),
  created_at: DateTime,
  updated_at: DateTime,
})

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
    response: pageOf(t.Record(t.String(), t.Unknown())),
  }),
]
