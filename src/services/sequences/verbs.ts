import { defineVerb } from '../verbs/define'
import { countEnrollment, enrollInSequence } from './enroll'
import {
  CreateSequenceInput,
  EnrollSequenceInput,
  ListSequenceEnrollmentsInput,
  ListSequencesInput,
  SequenceRef,
  StopEnrollmentInput,
  UpdateSequenceInput,
} from './inputs'
import {
  activateSequence,
  archiveSequence,
  createSequence,
  getSequence,
  listSequences,
  pauseSequence,
  updateSequence,
} from './lifecycle'
import { listSequenceEnrollments, stopSequenceEnrollment } from './reports'

export const listSequencesVerb = defineVerb({
  name: 'sequences.list',
  // Reads take any valid key: the spec gives GET /sequences no scope, and the extension reads
  // follow the same rule (as journeys do).
  scope: 'any',
  input: ListSequencesInput,
  mutates: false,
  run: (ctx, input) => listSequences(ctx, input),
})

export const createSequenceVerb = defineVerb({
  name: 'sequences.create',
  scope: 'sequences:write',
  input: CreateSequenceInput,
  mutates: true,
  run: (ctx, { client_id, ...fields }) => createSequence(ctx, fields, client_id),
})

export const getSequenceVerb = defineVerb({
  name: 'sequences.get',
  scope: 'any',
  input: SequenceRef,
  mutates: false,
  run: (ctx, { id }) => getSequence(ctx, id),
})

export const updateSequenceVerb = defineVerb({
  name: 'sequences.update',
  scope: 'sequences:write',
  input: UpdateSequenceInput,
  mutates: true,
  run: (ctx, { id, ...patch }) => updateSequence(ctx, id, patch),
})

export const activateSequenceVerb = defineVerb({
  name: 'sequences.activate',
  scope: 'sequences:write',
  input: SequenceRef,
  mutates: true,
  run: (ctx, { id }) => activateSequence(ctx, id),
})

export const pauseSequenceVerb = defineVerb({
  name: 'sequences.pause',
  scope: 'sequences:write',
  input: SequenceRef,
  mutates: true,
  run: (ctx, { id }) => pauseSequence(ctx, id),
})

export const archiveSequenceVerb = defineVerb({
  name: 'sequences.archive',
  scope: 'sequences:write',
  input: SequenceRef,
  mutates: true,
  destructive: true,
  run: (ctx, { id }) => archiveSequence(ctx, id),
})

export const enrollSequenceVerb = defineVerb({
  name: 'sequences.enroll',
  scope: 'sequences:write',
  input: EnrollSequenceInput,
  mutates: true,
  // The audience is counted before the write transaction (the count reads all of it).
  prepare: async (ctx, { id, ...input }) => countEnrollment(ctx, id, input),
  run: (ctx, { id, ...input }, counted) => enrollInSequence(ctx, id, input, counted),
})

export const listSequenceEnrollmentsVerb = defineVerb({
  name: 'sequences.enrollments',
  scope: 'any',
  input: ListSequenceEnrollmentsInput,
  mutates: false,
  run: (ctx, { id, ...page }) => listSequenceEnrollments(ctx, id, page),
})

export const stopSequenceEnrollmentVerb = defineVerb({
  name: 'sequences.enrollments.stop',
  scope: 'sequences:write',
  input: StopEnrollmentInput,
  mutates: true,
  destructive: true,
  run: (ctx, { id, contact_id }) => stopSequenceEnrollment(ctx, id, contact_id),
})
