import { defineVerb } from '../verbs/define'
import { NoInput } from '../verbs/schemas'
import { countJourneyEnrollment, enrollVerb } from './enroll'
import {
  CreateJourneyInput,
  EnrollInput,
  JourneyRef,
  ListEnrollmentsInput,
  ListJourneysInput,
  UpdateJourneyInput,
} from './inputs'
import {
  activateJourney,
  archiveJourney,
  createJourney,
  deleteJourney,
  getJourney,
  listJourneys,
  pauseJourney,
  updateJourney,
} from './lifecycle'
import { journeyStats, listEnrollments } from './reports'
import { enterNewSegmentMembers } from './triggers'

export const listJourneysVerb = defineVerb({
  name: 'journeys.list',
  // Reads take any valid key: the spec gives GET /journeys no scope, and the extension reads
  // follow the same rule.
  scope: 'any',
  input: ListJourneysInput,
  mutates: false,
  run: async (ctx, input) => await listJourneys(ctx, input),
})

export const createJourneyVerb = defineVerb({
  name: 'journeys.create',
  scope: 'journeys:write',
  input: CreateJourneyInput,
  mutates: true,
  run: async (ctx, { client_id, ...fields }) => await createJourney(ctx, fields, client_id),
})

export const getJourneyVerb = defineVerb({
  name: 'journeys.get',
  scope: 'any',
  input: JourneyRef,
  mutates: false,
  run: async (ctx, { id }) => await getJourney(ctx, id),
})

export const updateJourneyVerb = defineVerb({
  name: 'journeys.update',
  scope: 'journeys:write',
  input: UpdateJourneyInput,
  mutates: true,
  run: async (ctx, { id, ...patch }) => await updateJourney(ctx, id, patch),
})

export const deleteJourneyVerb = defineVerb({
  name: 'journeys.delete',
  scope: 'journeys:write',
  input: JourneyRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await deleteJourney(ctx, id),
})

export const activateJourneyVerb = defineVerb({
  name: 'journeys.activate',
  scope: 'journeys:write',
  input: JourneyRef,
  mutates: true,
  run: async (ctx, { id }) => await activateJourney(ctx, id),
})

export const pauseJourneyVerb = defineVerb({
  name: 'journeys.pause',
  scope: 'journeys:write',
  input: JourneyRef,
  mutates: true,
  run: async (ctx, { id }) => await pauseJourney(ctx, id),
})

export const archiveJourneyVerb = defineVerb({
  name: 'journeys.archive',
  scope: 'journeys:write',
  input: JourneyRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await archiveJourney(ctx, id),
})

export const enrollJourneyVerb = defineVerb({
  name: 'journeys.enroll',
  scope: 'journeys:write',
  input: EnrollInput,
  mutates: true,
  // The audience is counted before the write transaction (the count reads all of it).
  prepare: async (ctx, { id, ...input }) => await countJourneyEnrollment(ctx, id, input),
  run: async (ctx, { id, ...input }, counted) => await enrollVerb(ctx, id, input, counted),
})

export const listEnrollmentsVerb = defineVerb({
  name: 'journeys.enrollments',
  scope: 'any',
  input: ListEnrollmentsInput,
  mutates: false,
  run: async (ctx, { id, ...page }) => await listEnrollments(ctx, id, page),
})

export const journeyStatsVerb = defineVerb({
  name: 'journeys.stats',
  scope: 'any',
  input: JourneyRef,
  mutates: false,
  run: async (ctx, { id }) => await journeyStats(ctx, id),
})

/** The segment job: contacts newly matching a segment_entered journey's segment enter it. */
export const enterSegmentJourneysVerb = defineVerb({
  name: 'journeys.segment-entered',
  scope: 'admin:*',
  input: NoInput,
  mutates: true,
  run: async (ctx) => await enterNewSegmentMembers(ctx),
})
