import { Type as t } from '@sinclair/typebox'
import { SequenceEnrollmentStatus, SequenceStatus } from '../../services/sequences/inputs'
import {
  activateSequenceVerb,
  archiveSequenceVerb,
  createSequenceVerb,
  enrollSequenceVerb,
  getSequenceVerb,
  listSequenceEnrollmentsVerb,
  listSequencesVerb,
  pauseSequenceVerb,
  stopSequenceEnrollmentVerb,
  updateSequenceVerb,
} from '../../services/sequences/verbs'
import { DateTime, dataOf, Nullable, pageOf, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const StepStats = t.Object({
  step: t.Integer({ description: 'Index into steps' }),
  sent: t.Integer(),
  delivered: t.Integer(),
  opened: t.Integer(),
  clicked: t.Integer(),
  replied: t.Integer(),
  bounced: t.Integer(),
})

const Sequence = named(
  'Sequence',
  t.Object({
    id: Uuid,
    client_id: Uuid,
    name: t.String(),
    status: named('SequenceStatus', SequenceStatus),
    step_count: t.Integer(),
    steps: t.Array(t.Record(t.String(), t.Unknown()), {
      description: '[{channel, template_id, subject, body_html, body_text, delay}] as stored',
    }),
    settings: t.Object({
      stop_on_reply: t.Boolean(),
      sending_window: Nullable(t.Object({ days: t.Array(t.Integer()), start: t.String(), end: t.String() })),
      daily_limit: Nullable(t.Integer()),
    }),
    sender_id: Nullable(Uuid),
    stats: t.Array(StepStats),
    activated_at: Nullable(DateTime),
    archived_at: Nullable(DateTime),
    created_at: DateTime,
    updated_at: DateTime,
  }),
)

const Enrollment = named(
  'SequenceEnrollment',
  t.Object({
    sequence_id: Uuid,
    client_id: Uuid,
    contact_id: Uuid,
    status: named('SequenceEnrollmentStatus', SequenceEnrollmentStatus),
    current_step: Nullable(t.Integer({ description: 'The last step run' })),
    next_run_at: Nullable(DateTime),
    stop_reason: Nullable(t.String({ description: 'replied | bounced | unsubscribed | manual' })),
    entered_at: DateTime,
    ended_at: Nullable(DateTime),
    history: t.Array(t.Record(t.String(), t.Unknown()), {
      description:
        'Steps run, in order: {step, message_id, channel, at}; a skipped step {step, message_id: null, skipped, at}',
    }),
  }),
)

const tag = 'Sequences'
const ITEM = '/api/v1/sequences/{id}'

export const sequenceOperations = [
  route(listSequencesVerb, {
    id: 'listSequences',
    method: 'GET',
    path: '/api/v1/sequences',
    tag,
    summary: 'List sequences (filters: client_id, status)',
    query: ['limit', 'cursor', 'client_id', 'status'],
    answer: 'as-is',
    response: pageOf(Sequence),
  }),
  route(createSequenceVerb, {
    id: 'createSequence',
    method: 'POST',
    path: '/api/v1/sequences',
    tag,
    summary: 'Create a sequence (draft); its steps are checked on save',
    description:
      'A step is {channel?, template_id? | subject? + body_html? + body_text?, delay?}; delay is the wait before it (after enrollment for the first), an ISO 8601 duration or {days, hours, minutes}. An email step without a subject replies in the thread of the first (In-Reply-To, References, "Re: …"). settings: stop_on_reply (default true), sending_window {days: [1..7], start, end} in the contact’s time zone (else the client’s timezone, else UTC), daily_limit per sender. A failure is 422 naming steps[i].member.',
    query: ['client_id'],
    response: dataOf(Sequence),
    example: {
      request: {
        name: 'Founder outreach',
        steps: [
          {
            channel: 'email',
            subject: 'Quick question, {{ contact.first_name }}',
            body_text: 'Hi…',
            delay: 'PT0S',
          },
          { channel: 'email', body_text: 'Following up on my note.', delay: 'P2D' },
          { channel: 'email', body_text: 'Last one from me.', delay: { days: 4 } },
        ],
        settings: {
          stop_on_reply: true,
          sending_window: { days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' },
          daily_limit: 50,
        },
      },
    },
  }),
  route(getSequenceVerb, {
    id: 'getSequence',
    method: 'GET',
    path: ITEM,
    tag,
    summary: 'Get a sequence with its per-step stats',
    response: dataOf(Sequence),
  }),
  route(updateSequenceVerb, {
    id: 'updateSequence',
    method: 'PATCH',
    path: ITEM,
    tag,
    summary: 'Update a sequence (steps only while draft or paused)',
    response: dataOf(Sequence),
  }),
  route(activateSequenceVerb, {
    id: 'activateSequence',
    method: 'POST',
    path: `${ITEM}/activate`,
    tag,
    summary: 'Activate a draft or paused sequence (its steps are checked again)',
    response: dataOf(Sequence),
  }),
  route(pauseSequenceVerb, {
    id: 'pauseSequence',
    method: 'POST',
    path: `${ITEM}/pause`,
    tag,
    summary: 'Pause an active sequence: due steps and queued messages wait until it is activated again',
    response: dataOf(Sequence),
  }),
  route(archiveSequenceVerb, {
    id: 'archiveSequence',
    method: 'POST',
    path: `${ITEM}/archive`,
    tag,
    summary: 'Archive a sequence: every active run exits; unsent messages are cancelled',
    response: dataOf(Sequence),
  }),
  route(enrollSequenceVerb, {
    id: 'enrollSequence',
    method: 'POST',
    path: `${ITEM}/enroll`,
    tag,
    summary: 'Enroll contacts (contact_ids, segment_id and/or list_id) in an active sequence',
    description:
      'The union, each contact once. A contact who is or was in the sequence, or is not subscribed, is skipped. 409 unless active; a reference of another client is 422 and nobody is enrolled.',
    response: dataOf(
      named(
        'SequenceEnrollResult',
        t.Object({
          sequence_id: Uuid,
          enrolled: t.Integer(),
          skipped: t.Integer(),
          first_run_at: DateTime,
        }),
      ),
    ),
  }),
  route(listSequenceEnrollmentsVerb, {
    id: 'listSequenceEnrollments',
    method: 'GET',
    path: `${ITEM}/enrollments`,
    tag,
    summary: 'Runs of a sequence, newest first: each contact’s status, next step and history',
    query: ['limit', 'cursor', 'status', 'contact_id'],
    answer: 'as-is',
    response: pageOf(Enrollment),
  }),
  route(stopSequenceEnrollmentVerb, {
    id: 'stopSequenceEnrollment',
    method: 'POST',
    path: `${ITEM}/enrollments/{contact_id}/stop`,
    tag,
    summary: 'Stop one contact’s run (stop_reason manual); its queued messages are cancelled',
    response: dataOf(Enrollment),
  }),
]
