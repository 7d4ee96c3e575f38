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
  run: async (ctx, input) => await listSequences(ctx, input),
})

export const createSequenceVerb = defineVerb({
  name: 'sequences.create',
  scope: 'sequences:write',
  input: CreateSequenceInput,
  mutates: true,
  run: async (ctx, { client_id, ...fields }) => await createSequence(ctx, fields, client_id),
})

export const getSequenceVerb = defineVerb({
  name: 'sequences.get',
  scope: 'any',
  input: SequenceRef,
  mutates: false,
  run: async (ctx, { id }) => await getSequence(ctx, id),
})

export const updateSequenceVerb = defineVerb({
  name: 'sequences.update',
  scope: 'sequences:write',
  input: UpdateSequenceInput,
  mutates: true,
  run: async (ctx, { id, ...patch }) => await updateSequence(ctx, id, patch),
})

export const activateSequenceVerb = defineVerb({
  name: 'sequences.activate',
  scope: 'sequences:write',
  input: SequenceRef,
  mutates: true,
  run: async (ctx, { id }) => await activateSequence(ctx, id),
})

export const pauseSequenceVerb = defineVerb({
  name: 'sequences.pause',
  scope: 'sequences:write',
  input: SequenceRef,
  mutates: true,
  run: async (ctx, { id }) => await pauseSequence(ctx, id),
})

export const archiveSequenceVerb = defineVerb({
  name: 'sequences.archive',
  scope: 'sequences:write',
  input: SequenceRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await archiveSequence(ctx, id),
})

export const enrollSequenceVerb = defineVerb({
  name: 'sequences.enroll',
  scope: 'sequences:write',
  input: EnrollSequenceInput,
  mutates: true,
  // The audience is counted before the write transaction (the count reads all of it).
  prepare: async (ctx, { id, ...input }) => await countEnrollment(ctx, id, input),
  run: async (ctx, { id, ...input }, counted) => await enrollInSequence(ctx, id, input, counted),
})

export const listSequenceEnrollmentsVerb = defineVerb({
  name: 'sequences.enrollments',
  scope: 'any',
  input: ListSequenceEnrollmentsInput,
  mutates: false,
  run: async (ctx, { id, ...page }) => await listSequenceEnrollments(ctx, id, page),
})

export const stopSequenceEnrollmentVerb = defineVerb({
  name: 'sequences.enrollments.stop',
  scope: 'sequences:write',
  input: StopEnrollmentInput,
  mutates: true,
  destructive: true,
  run: async (ctx, { id, contact_id }) => await stopSequenceEnrollment(ctx, id, contact_id),
})
