import { defineVerb } from '../verbs/define'
import { NoInput } from '../verbs/schemas'
import { segmentCostErrors } from './cost'
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
  segmentContacts,
  storeSegmentSizes,
  updateSegment,
} from './records'
import { compileSegment, type RuleGroup } from './rules'
import { previewPage, sizeAllSegments, sizeNewSegment, sizeSegmentUpdate, sizeUnsaved } from './sizing'

export const listSegmentsVerb = defineVerb({
  name: 'segments.list',
  scope: 'any',
  input: ListSegmentsInput,
  mutates: false,
  run: async (ctx, input) => await listSegments(ctx, input),
})

/**
 * The rules' own errors (unknown field or operator, bad values) and their cost over the limit,
 * reported with the schema's; list references are checked when the segment is counted.
 */
const ruleErrors = (groups: RuleGroup[] | undefined) => {
  if (!groups) return []
  const errors = compileSegment('all', groups, { now: 0, listExists: () => true }).errors
  return errors.length ? errors : segmentCostErrors(groups)
}

/** Segments sized when saved: the count runs on a read thread within its time budget (./count.ts). */

export const createSegmentVerb = defineVerb({
  name: 'segments.create',
  scope: 'lists:write',
  input: CreateSegmentInput,
  mutates: true,
  check: (input) => ruleErrors(input.rule_groups),
  prepare: async (ctx, { client_id, ...fields }) => await sizeNewSegment(ctx, fields, client_id),
  run: async (ctx, { client_id, ...fields }, sized) => await createSegment(ctx, fields, sized, client_id),
})

export const getSegmentVerb = defineVerb({
  name: 'segments.get',
  scope: 'any',
  input: SegmentRef,
  mutates: false,
  run: async (ctx, { id }) => await getSegment(ctx, id),
})

export const updateSegmentVerb = defineVerb({
  name: 'segments.update',
  scope: 'lists:write',
  input: UpdateSegmentInput,
  mutates: true,
  check: (input) => ruleErrors(input.rule_groups),
  prepare: async (ctx, { id, ...patch }) => await sizeSegmentUpdate(ctx, id, patch),
  run: async (ctx, { id, ...patch }, sized) => await updateSegment(ctx, id, patch, sized),
})

export const deleteSegmentVerb = defineVerb({
  name: 'segments.delete',
  scope: 'lists:write',
  input: SegmentRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await deleteSegment(ctx, id),
})

export const segmentContactsVerb = defineVerb({
  name: 'segments.contacts',
  scope: 'any',
  input: SegmentContactsInput,
  mutates: false,
  prepare: async (ctx, { id, ...page }) => await previewPage(ctx, id, page),
  run: async (ctx, { id: _id, ...page }, found) => await segmentContacts(ctx, page, found),
})

/** Recomputes every segment's estimated_size (a scheduled job). */
export const refreshSegmentSizesVerb = defineVerb({
  name: 'segments.refresh-sizes',
  scope: 'admin:*',
  input: NoInput,
  mutates: true,
  prepare: async (ctx) => await sizeAllSegments(ctx),
  run: async (ctx, _input, sizes) => ({ refreshed: await storeSegmentSizes(ctx, sizes) }),
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
  prepare: async (ctx, input) => await sizeUnsaved(ctx, input, 5),
  run: async (ctx, _input, found) => await estimateSegment(ctx, found),
})
