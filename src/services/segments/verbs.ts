import { defineVerb } from '../verbs/define'
import { NoInput } from '../verbs/schemas'
import {
  CreateSegmentInput,
  EstimateSegmentInput,
  ListSegmentsInput,
  SegmentContactsInput,
  SegmentRef,
  UpdateSegmentInput,
} from './inputs'
import {
  createSegment,
  deleteSegment,
  estimateSegment,
  getSegment,
  listSegments,
  refreshSegmentSizes,
  segmentContacts,
  updateSegment,
} from './manage'
import { compileSegment, type RuleGroup } from './rules'

export const listSegmentsVerb = defineVerb({
  name: 'segments.list',
  scope: 'any',
  input: ListSegmentsInput,
  mutates: false,
  run: (ctx, input) => listSegments(ctx, input),
})

/**
 * The rules' own errors (unknown field or operator, bad values), reported with the schema's;
 * list references are checked when the segment is saved.
 */
const ruleErrors = (groups: RuleGroup[] | undefined) =>
  groups ? compileSegment('all', groups, { now: 0, listExists: () => true }).errors : []

export const createSegmentVerb = defineVerb({
  name: 'segments.create',
  scope: 'lists:write',
  input: CreateSegmentInput,
  mutates: true,
  check: (input) => ruleErrors(input.rule_groups),
  run: (ctx, { client_id, ...fields }) => createSegment(ctx, fields, client_id),
})

export const getSegmentVerb = defineVerb({
  name: 'segments.get',
  scope: 'any',
  input: SegmentRef,
  mutates: false,
  run: (ctx, { id }) => getSegment(ctx, id),
})

export const updateSegmentVerb = defineVerb({
  name: 'segments.update',
  scope: 'lists:write',
  input: UpdateSegmentInput,
  mutates: true,
  check: (input) => ruleErrors(input.rule_groups),
  run: (ctx, { id, ...patch }) => updateSegment(ctx, id, patch),
})

export const deleteSegmentVerb = defineVerb({
  name: 'segments.delete',
  scope: 'lists:write',
  input: SegmentRef,
  mutates: true,
  destructive: true,
  run: (ctx, { id }) => deleteSegment(ctx, id),
})

export const segmentContactsVerb = defineVerb({
  name: 'segments.contacts',
  scope: 'any',
  input: SegmentContactsInput,
  mutates: false,
  run: (ctx, { id, ...page }) => segmentContacts(ctx, id, page),
})

/** Recomputes every segment's estimated_size (a scheduled job). */
export const refreshSegmentSizesVerb = defineVerb({
  name: 'segments.refresh-sizes',
  scope: 'admin:*',
  input: NoInput,
  mutates: true,
  run: (ctx) => ({ refreshed: refreshSegmentSizes(ctx) }),
})

/**
 * The size of unsaved rules (the portal's live estimate while editing; portal-only read, the
 * REST API sizes a segment when it is saved). Same rule checks as create.
 */
export const estimateSegmentVerb = defineVerb({
  name: 'segments.estimate',
  scope: 'any',
  input: EstimateSegmentInput,
  mutates: false,
  check: (input) => ruleErrors(input.rule_groups),
  run: (ctx, input) => estimateSegment(ctx, input),
})
