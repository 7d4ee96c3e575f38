import { Type as t } from '@sinclair/typebox'
import { EnrollmentStatus, JourneyStatus } from '../../services/journeys/inputs'
import {
  activateJourneyVerb,
  archiveJourneyVerb,
  createJourneyVerb,
  deleteJourneyVerb,
  enrollJourneyVerb,
  getJourneyVerb,
  journeyStatsVerb,
  listEnrollmentsVerb,
  listJourneysVerb,
  pauseJourneyVerb,
  updateJourneyVerb,
} from '../../services/journeys/verbs'
import { DateTime, dataOf, Nullable, pageOf, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const Journey = named(
  'Journey',
  t.Object({
    id: Uuid,
    client_id: Uuid,
    name: t.String(),
    status: named('JourneyStatus', JourneyStatus),
    nodes: t.Array(t.Record(t.String(), t.Unknown()), {
      description: 'The graph: {id, type, next?, ...members of its type}',
    }),
    allow_reentry: t.Boolean(),
    trigger: Nullable(t.String({ description: 'The trigger kind, set at activation' })),
    activated_at: Nullable(DateTime),
    archived_at: Nullable(DateTime),
    created_at: DateTime,
    updated_at: DateTime,
  }),
)

const Enrollment = named(
  'JourneyEnrollment',
  t.Object({
    journey_id: Uuid,
    client_id: Uuid,
    contact_id: Uuid,
    status: named('EnrollmentStatus', EnrollmentStatus),
    current_node: Nullable(t.String()),
    next_run_at: Nullable(DateTime),
    exit_reason: Nullable(
      t.String({ description: 'goal | archived | bounced | complained | unsubscribed | manual | erased' }),
    ),
    entered_at: DateTime,
    ended_at: Nullable(DateTime),
    history: t.Array(t.Record(t.String(), t.Unknown()), {
      description: 'Nodes passed, in order: {node, at, message_id?, result?, branch?, skipped?, ...}',
    }),
  }),
)

const NodeMessages = t.Object({
  queued: t.Integer(),
  sent: t.Integer(),
  delivered: t.Integer(),
  opened: t.Integer(),
  clicked: t.Integer(),
  bounced: t.Integer(),
  failed: t.Integer(),
})

const Stats = named(
  'JourneyStats',
  t.Object({
    journey_id: Uuid,
    client_id: Uuid,
    status: JourneyStatus,
    entered: t.Integer(),
    active: t.Integer(),
    completed: t.Integer(),
    exited: t.Integer(),
    goal_conversions: t.Integer(),
    exit_reasons: t.Record(t.String(), t.Integer()),
    nodes: t.Array(
      t.Object({
        id: t.String(),
        type: t.String(),
        passed: t.Integer({ description: 'Enrollments that ran this node' }),
        waiting: t.Integer({
          description:
            'Active enrollments at this node (their current_node): a contact parked in a wait or wait_for_event counts at that node',
        }),
        messages: t.Optional(NodeMessages),
      }),
    ),
  }),
)

const tag = 'Journeys'
const ITEM = '/api/v1/journeys/{id}'

export const journeyOperations = [
  route(listJourneysVerb, {
    id: 'listJourneys',
    method: 'GET',
    path: '/api/v1/journeys',
    tag,
    summary: 'List journeys (filters: client_id, status)',
    query: ['limit', 'cursor', 'client_id', 'status'],
    answer: 'as-is',
    response: pageOf(Journey),
  }),
  route(createJourneyVerb, {
    id: 'createJourney',
    method: 'POST',
    path: '/api/v1/journeys',
    tag,
    summary: 'Create a journey (draft); its nodes are checked on save',
    description:
      'A node is {id, type, next?, ...}: trigger (trigger: manual|segment_entered|list_joined|event|contact_created), send (channel, template_id, sender_id?), wait (duration ISO 8601 or until HH:MM), wait_for_event (event, timeout, on_event, on_timeout), condition (match, rule_groups, yes, no), split (branches [{weight, next, name?}]), update_contact (fields), add_to_list / remove_from_list (list_id), webhook (webhook_id), goal (match, rule_groups), exit. A failure is 422 naming nodes[<id>].<member>.',
    query: ['client_id'],
    response: dataOf(Journey),
    example: {
      request: {
        name: 'Trial welcome',
        nodes: [
          {
            id: 't',
            type: 'trigger',
            trigger: 'list_joined',
            list_id: '0193a4f2-7c1e-7d3a-9f00-4b1c2d3e4f50',
            next: 's1',
          },
          {
            id: 's1',
            type: 'send',
            channel: 'email',
            template_id: '0193a4f2-8d2f-7e4b-a011-5c2d3e4f5061',
            next: 'w1',
          },
          { id: 'w1', type: 'wait', duration: 'P2D', next: 'c1' },
          {
            id: 'c1',
            type: 'condition',
            rule_groups: [{ match: 'all', rules: [{ field: 'event', event: 'clicked', operator: 'has' }] }],
            yes: 'x',
            no: 's2',
          },
          {
            id: 's2',
            type: 'send',
            channel: 'email',
            template_id: '0193a4f2-9e30-7f5c-b122-6d3e4f506172',
            next: 'x',
          },
          { id: 'x', type: 'exit' },
        ],
      },
    },
  }),
  route(getJourneyVerb, {
    id: 'getJourney',
    method: 'GET',
    path: ITEM,
    tag,
    summary: 'Get a journey',
    response: dataOf(Journey),
  }),
  route(updateJourneyVerb, {
    id: 'updateJourney',
    method: 'PATCH',
    path: ITEM,
    tag,
    summary: 'Update a journey (nodes only while draft or paused)',
    response: dataOf(Journey),
  }),
  route(deleteJourneyVerb, {
    id: 'deleteJourney',
    method: 'DELETE',
    path: ITEM,
    tag,
    summary: 'Delete a draft journey',
    response: dataOf(t.Object({ id: Uuid, deleted: t.Boolean() })),
  }),
  route(activateJourneyVerb, {
    id: 'activateJourney',
    method: 'POST',
    path: `${ITEM}/activate`,
    tag,
    summary: 'Activate a draft or paused journey (the whole graph is checked)',
    response: dataOf(Journey),
  }),
  route(pauseJourneyVerb, {
    id: 'pauseJourney',
    method: 'POST',
    path: `${ITEM}/pause`,
    tag,
    summary: 'Pause an active journey: no step runs (due steps wait) until it is activated again',
    response: dataOf(Journey),
  }),
  route(archiveJourneyVerb, {
    id: 'archiveJourney',
    method: 'POST',
    path: `${ITEM}/archive`,
    tag,
    summary: 'Archive a journey: everyone in it exits (exit_reason archived); unsent messages are cancelled',
    response: dataOf(Journey),
  }),
  route(enrollJourneyVerb, {
    id: 'enrollJourney',
    method: 'POST',
    path: `${ITEM}/enroll`,
    tag,
    summary: 'Enroll contacts (contact_ids and/or segment_id) in an active journey',
    description:
      'Union of both, de-duplicated. A contact who is or ever was in the journey is skipped unless allow_reentry. 409 unless active; a reference of another client is 422 and nobody is enrolled.',
    response: dataOf(
      named('EnrollResult', t.Object({ journey_id: Uuid, enrolled: t.Integer(), skipped: t.Integer() })),
    ),
  }),
  route(listEnrollmentsVerb, {
    id: 'listJourneyEnrollments',
    method: 'GET',
    path: `${ITEM}/enrollments`,
    tag,
    summary: 'Enrollments of a journey, newest first: each contact’s status, next step and path',
    query: ['limit', 'cursor', 'status', 'contact_id'],
    answer: 'as-is',
    response: pageOf(Enrollment),
  }),
  route(journeyStatsVerb, {
    id: 'getJourneyStats',
    method: 'GET',
    path: `${ITEM}/stats`,
    tag,
    summary:
      'Journey statistics: entered, active, completed, exited, goal conversions, per-node counts and messages',
    response: dataOf(Stats),
  }),
]
