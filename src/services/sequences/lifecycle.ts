import { and, eq, type SQL } from 'drizzle-orm'
import type { Ctx } from '../../context'
import type { Db } from '../../db/client'
import { paginate } from '../../db/paginate'
import { type SequenceRow, sequences } from '../../db/schema'
import { findVisible, listFilter, ownerForCreate } from '../../db/tenant'
import { type FieldError, notFound, validationFailed } from '../../errors'
import type { SequenceStatus } from '../../lib/enums'
import { newId, parseId } from '../../lib/ids'
import { endEveryRun } from '../flows/lifecycle'
import type { SequenceStep } from '../flows/linear'
import { stateMachine, type Transition } from '../states'
import type { ListSequencesQuery, SequenceInput, SequencePatch, SettingsInput } from './inputs'
import { presentSequence } from './present'
import { stepStats } from './step-stats'
import { checkSender, checkSteps, normalizeSteps } from './steps'

// A sequence's life: created draft → active ⇄ paused, any → archived
// (terminal). Steps are checked on every save and again at activation (templates may have
// gone meanwhile); archiving ends every run and cancels what is still queued.

const TRANSITIONS = {
  update: { from: ['draft', 'active', 'paused'], done: 'changed' },
  edit: { from: ['draft', 'paused'], done: 'given new steps' },
  activate: { from: ['draft', 'paused'], done: 'activated' },
  pause: { from: ['active'], done: 'paused' },
  archive: { from: ['draft', 'active', 'paused'], done: 'archived' },
  enroll: { from: ['active'], done: 'given enrollments' },
} as const satisfies Record<string, Transition<SequenceStatus>>
const STATES = stateMachine<SequenceStatus, typeof TRANSITIONS>('sequence', TRANSITIONS)

/** Whether a sequence in this state takes new steps (drafts and paused ones; the edit rule). */
export const stepsEditable = (status: SequenceStatus) => STATES.allows(status, 'edit')

export const assertSequenceState = (row: SequenceRow, op: keyof typeof TRANSITIONS) =>
  STATES.assert(row.status, op)

export async function findSequenceRow(ctx: Ctx, id: string): Promise<SequenceRow> {
  const row = await findVisible(ctx.db, ctx.actor, sequences, id)
  if (!row) throw notFound('Sequence')
  return row
}

const present = async (db: Db, row: SequenceRow) => presentSequence(row, await stepStats(db, row))

function windowErrors(settings: SettingsInput | undefined): FieldError[] {
  const w = settings?.sending_window
  if (!w) return []
  const errors: FieldError[] = []
  if (w.end <= w.start)
    errors.push({ field: 'settings.sending_window.end', message: `must be after start (${w.start})` })
  if (new Set(w.days).size !== w.days.length)
    errors.push({ field: 'settings.sending_window.days', message: 'names a day twice' })
  return errors
}

async function checkOrThrow(
  db: Db,
  clientId: string,
  steps: SequenceStep[],
  senderId: string | null,
  settings: SettingsInput | undefined,
  activating: boolean,
) {
  const errors = [
    ...(await checkSteps(db, clientId, steps, activating)),
    ...(await checkSender(db, clientId, senderId)),
    ...windowErrors(settings),
  ]
  if (errors.length) throw validationFailed(errors)
}

const senderIdOf = (value: string | null | undefined) => (value == null ? null : (parseId(value) ?? value))

export async function createSequence(ctx: Ctx, input: SequenceInput, clientIdParam?: string) {
  const clientId = await ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  const now = ctx.clock.now()
  const steps = await normalizeSteps(ctx.db, clientId, input.steps ?? [])
  const senderId = senderIdOf(input.sender_id)
  await checkOrThrow(ctx.db, clientId, steps, senderId, input.settings, false)
  const row = (
    await ctx.db
      .insert(sequences)
      .values({
        id: newId(),
        clientId,
        name: input.name,
        steps: steps as unknown as Record<string, unknown>[],
        senderId,
        stopOnReply: input.settings?.stop_on_reply ?? true,
        sendingWindow: input.settings?.sending_window ?? null,
        dailyLimit: input.settings?.daily_limit ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
  )[0]!
  return await present(ctx.db, row)
}

export const getSequence = async (ctx: Ctx, id: string) =>
  await present(ctx.db, await findSequenceRow(ctx, id))

export async function listSequences(ctx: Ctx, page: ListSequencesQuery) {
  const conditions: (SQL | undefined)[] = [listFilter(ctx.actor, sequences.clientId, page.client_id)]
  if (page.status) conditions.push(eq(sequences.status, page.status))
  return await paginate(
    ctx.db,
    ctx.secretKey,
    sequences,
    sequences.id,
    and(...conditions),
    page,
    async (row) => await present(ctx.db, row),
  )
}

export async function updateSequence(ctx: Ctx, id: string, patch: SequencePatch) {
  const current = await findSequenceRow(ctx, id)
  assertSequenceState(current, 'update')
  if (patch.steps !== undefined) assertSequenceState(current, 'edit')
  const steps =
    patch.steps === undefined
      ? (current.steps as unknown as SequenceStep[])
      : await normalizeSteps(ctx.db, current.clientId, patch.steps)
  const senderId = patch.sender_id === undefined ? current.senderId : senderIdOf(patch.sender_id)
  // Steps are checked when given (a paused sequence resumes on them: whole, as at activation);
  // a rename is not refused for a template deleted since (activation and sending say so).
  await checkOrThrow(
    ctx.db,
    current.clientId,
    patch.steps === undefined ? [] : steps,
    senderId,
    patch.settings,
    patch.steps !== undefined && current.status === 'paused',
  )
  const s = patch.settings
  const row = (
    await ctx.db
      .update(sequences)
      .set({
        name: patch.name ?? current.name,
        steps: steps as unknown as Record<string, unknown>[],
        senderId,
        stopOnReply: s?.stop_on_reply ?? current.stopOnReply,
        sendingWindow: s?.sending_window === undefined ? current.sendingWindow : s.sending_window,
        dailyLimit: s?.daily_limit === undefined ? current.dailyLimit : s.daily_limit,
        updatedAt: Math.max(ctx.clock.now(), current.updatedAt + 1),
      })
      .where(eq(sequences.id, id))
      .returning()
  )[0]!
  return await present(ctx.db, row)
}

export async function activateSequence(ctx: Ctx, id: string) {
  const row = await findSequenceRow(ctx, id)
  assertSequenceState(row, 'activate')
  const steps = row.steps as unknown as SequenceStep[]
  await checkOrThrow(ctx.db, row.clientId, steps, row.senderId, undefined, true)
  const now = ctx.clock.now()
  const updated = (
    await ctx.db
      .update(sequences)
      .set({ status: 'active', activatedAt: row.activatedAt ?? now, updatedAt: now })
      .where(eq(sequences.id, id))
      .returning()
  )[0]!
  ctx.workers.wake('flows')
  ctx.workers.wake('send')
  return await present(ctx.db, updated)
}

/** Pausing holds every run where it is (due steps wait) and the messages still queued. */
export async function pauseSequence(ctx: Ctx, id: string) {
  const row = await findSequenceRow(ctx, id)
  assertSequenceState(row, 'pause')
  const updated = (
    await ctx.db
      .update(sequences)
      .set({ status: 'paused', updatedAt: ctx.clock.now() })
      .where(eq(sequences.id, id))
      .returning()
  )[0]!
  return await present(ctx.db, updated)
}

/** Archiving ends every active run (status exited) and cancels the unsent messages. */
export async function archiveSequence(ctx: Ctx, id: string) {
  const row = await findSequenceRow(ctx, id)
  assertSequenceState(row, 'archive')
  const now = ctx.clock.now()
  await endEveryRun(ctx.db, id, null, 'sequence archived', now)
  const updated = (
    await ctx.db
      .update(sequences)
      .set({ status: 'archived', archivedAt: now, updatedAt: now })
      .where(eq(sequences.id, id))
      .returning()
  )[0]!
  return await present(ctx.db, updated)
}
