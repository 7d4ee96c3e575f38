import { type TSchema, Type as t } from '@sinclair/typebox'
import { idRef, pageQueryMembers, RecordId, strict } from '../verbs/schemas'

// The input shapes both flow doors take the same way: listing flows by status, enrolling an
// audience, listing a flow's enrollments.

/** GET /journeys, GET /sequences: a page, narrowed by client and status. */
export const listFlowsInput = <S extends TSchema>(status: S) =>
  t.Object({ ...pageQueryMembers, client_id: t.Optional(t.String()), status: t.Optional(status) }, strict)

/** The enroll call: contact ids and a segment (and, for outreach, a list). */
export const enrollInput = <M extends Record<string, TSchema>>(more: M) =>
  t.Object(
    {
      id: RecordId,
      contact_ids: t.Optional(t.Array(idRef('contact'), { maxItems: 10_000 })),
      segment_id: t.Optional(idRef('segment')),
      ...more,
    },
    strict,
  )

/** A flow's enrollments, a page, narrowed by status and contact. */
export const listEnrollmentsInput = <S extends TSchema>(status: S) =>
  t.Object(
    {
      id: RecordId,
      ...pageQueryMembers,
      status: t.Optional(status),
      contact_id: t.Optional(idRef('contact')),
    },
    strict,
  )
