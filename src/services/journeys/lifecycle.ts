import { and, eq, inArray, type SQL, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import type { Db } from '../../db/client'
import { paginate } from '../../db/paginate'
import { rawRun } from '../../db/raw'
import {
  campaigns,
  flowRuns,
  type JourneyRow,
  journeys,
  lists,
  segments,
  senders,
  templates,
  webhooks,
} from '../../db/schema'
import { findVisible, listFilter, ownedIds, ownerForCreate } from '../../db/tenant'
import { notFound, validationFailed } from '../../errors'
import type { JourneyStatus } from '../../lib/enums'
import { newId, parseId, recordIdsIn } from '../../lib/ids'
import { isTimeZone } from '../contacts/normalize'
import { endEveryRun } from '../flows/lifecycle'
import { type FlowNode, JOURNEY_EVENTS } from '../flows/nodes'
import { segmentCostErrors } from '../segments/cost'
import { compileSegment, type RuleGroup } from '../segments/rules'
import { stateMachine, type Transition } from '../states'
import { checkGraph, type GraphRefs } from './graph'
import type { JourneyInput, JourneyPatch, ListJourneysQuery } from './inputs'
import { presentJourney } from './present'
import { baselineSegment } from './triggers'

// A journey's life: draft → active ⇄ paused, any → archived. The graph is
// checked on every save and in full at activation; archiving ends every enrollment.

const TRANSITIONS = {
  update: { from: ['draft', 'active', 'paused'], done: 'changed' },
  edit: { from: ['draft', 'paused'], done: 'given new nodes' },
  activate: { from: ['draft', 'paused'], done: 'activated' },
  pause: { from: ['active'], done: 'paused' },
  archive: { from: ['draft', 'active', 'paused'], done: 'archived' },
  delete: { from: ['draft'], done: 'deleted' },
} as const satisfies Record<string, Transition<JourneyStatus>>
const STATES = stateMachine<JourneyStatus, typeof TRANSITIONS>('journey', TRANSITIONS)

/** Whether a journey in this state takes graph edits (drafts and paused ones; the edit rule). */
export const nodesEditable = (status: JourneyStatus) => STATES.allows(status, 'edit')

export const assertJourneyState = (row: JourneyRow, op: keyof typeof TRANSITIONS) =>
  STATES.assert(row.status, op)

export async function findJourneyRow(ctx: Ctx, id: string): Promise<JourneyRow> {
  const row = await findVisible(ctx.db, ctx.actor, journeys, id)
  if (!row) throw notFound('Journey')
  return row
}

/**
 * The graph's lookups, for one client's records only (another client's are "no such"). The
 * records the graph names are read at once, so the graph itself is checked without the store.
 */
export async function graphRefs(db: Db, clientId: string, now: number, nodes: unknown): Promise<GraphRefs> {
  const ids = recordIdsIn(nodes)
  const has = (found: Set<string>) => (id: string) => found.has(parseId(id) ?? id)
  const listExists = has(await ownedIds(db, lists, clientId, ids))
  const sender = has(await ownedIds(db, senders, clientId, ids))
  const segment = has(await ownedIds(db, segments, clientId, ids))
  const webhook = has(await ownedIds(db, webhooks, clientId, ids))
  const campaign = has(await ownedIds(db, campaigns, clientId, ids))
  const channels = new Map<string, string>()
  const known = [...ids]
  for (let i = 0; i < known.length; i += 500)
    for (const t of await db
      .select({ id: templates.id, channel: templates.channel })
      .from(templates)
      .where(and(inArray(templates.id, known.slice(i, i + 500)), eq(templates.clientId, clientId))))
      channels.set(t.id, t.channel)
  return {
    templateChannel: (id) => channels.get(parseId(id) ?? id) ?? null,
    sender,
    list: listExists,
    segment,
    webhook,
    campaign,
    rules: (match, groups) => {
      const errors = compileSegment(match, groups as RuleGroup[], { now, listExists }).errors
      return errors.length ? errors : segmentCostErrors(groups)
    },
    timeZone: isTimeZone,
  }
}

const REF_MEMBERS = ['template_id', 'sender_id', 'list_id', 'segment_id', 'webhook_id', 'campaign_id']

/** References are stored as lower-case UUIDs whatever form they came in (`tpl_…` too). */
function normalizeNodes(nodes: Record<string, unknown>[]): Record<string, unknown>[] {
  return nodes.map((n) => {
    if (!n || typeof n !== 'object') return n
    const out = { ...n }
    for (const k of REF_MEMBERS) if (typeof out[k] === 'string') out[k] = parseId(out[k] as string) ?? out[k]
    return out
  })
}

async function checkOrThrow(
  db: Db,
  clientId: string,
  nodes: unknown[],
  mode: 'save' | 'activate',
  now: number,
) {
  const errors = checkGraph(nodes, await graphRefs(db, clientId, now, nodes), mode)
  if (errors.length) throw validationFailed(errors)
}

export async function createJourney(ctx: Ctx, input: JourneyInput, clientIdParam?: string) {
  const clientId = await ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  const now = ctx.clock.now()
  const nodes = normalizeNodes(input.nodes ?? [])
  await checkOrThrow(ctx.db, clientId, nodes, 'save', now)
  const row = (
    await ctx.db
      .insert(journeys)
      .values({
        id: newId(),
        clientId,
        name: input.name,
        nodes,
        allowReentry: input.allow_reentry ?? false,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
  )[0]!
  return presentJourney(row)
}

export const getJourney = async (ctx: Ctx, id: string) => presentJourney(await findJourneyRow(ctx, id))

export async function listJourneys(ctx: Ctx, page: ListJourneysQuery) {
  const conditions: (SQL | undefined)[] = [listFilter(ctx.actor, journeys.clientId, page.client_id)]
  if (page.status) conditions.push(eq(journeys.status, page.status))
  return await paginate(
    ctx.db,
    ctx.secretKey,
    journeys,
    journeys.id,
    and(...conditions),
    page,
    presentJourney,
  )
}

export async function updateJourney(ctx: Ctx, id: string, patch: JourneyPatch) {
  const current = await findJourneyRow(ctx, id)
  assertJourneyState(current, 'update')
  const now = ctx.clock.now()
  let nodes = current.nodes
  if (patch.nodes !== undefined) {
    assertJourneyState(current, 'edit')
    nodes = normalizeNodes(patch.nodes)
    // A paused journey resumes on this graph: it must be whole, and keep the nodes contacts wait at.
    await checkOrThrow(
      ctx.db,
      current.clientId,
      nodes,
      current.status === 'paused' ? 'activate' : 'save',
      now,
    )
    if (current.status === 'paused') {
      const kept = new Set(nodes.map((n) => n.id))
      const waiting = (
        await ctx.db.selectDistinct({ node: flowRuns.nodeId }).from(flowRuns).where(eq(flowRuns.flowId, id))
      ).filter((r) => !kept.has(r.node))
      if (waiting.length)
        throw validationFailed(
          waiting.map((w) => ({
            field: `nodes[${w.node}]`,
            message: 'contacts are waiting at this node; it cannot be removed',
          })),
        )
    }
  }
  const row = (
    await ctx.db
      .update(journeys)
      .set({
        name: patch.name ?? current.name,
        nodes,
        allowReentry: patch.allow_reentry ?? current.allowReentry,
        ...(current.status === 'paused' && patch.nodes !== undefined
          ? triggerColumns(nodes as FlowNode[])
          : {}),
        // updated_at is the node editor's version (./node-verbs.ts): it moves on every change,
        // even two within one millisecond (or under a clock that stands still).
        updatedAt: Math.max(now, current.updatedAt + 1),
      })
      .where(eq(journeys.id, id))
      .returning()
  )[0]!
  return presentJourney(row)
}

export async function deleteJourney(ctx: Ctx, id: string) {
  const row = await findJourneyRow(ctx, id)
  assertJourneyState(row, 'delete')
  await ctx.db.delete(journeys).where(eq(journeys.id, id))
  return { id, deleted: true }
}

/** The trigger's kind and reference, copied out of the graph for the hooks' index. */
function triggerColumns(nodes: FlowNode[]) {
  const t = nodes.find((n) => n.type === 'trigger')
  const kind = (t?.trigger as string) ?? null
  return {
    triggerKind: kind,
    triggerRef:
      ((kind === 'segment_entered'
        ? t?.segment_id
        : kind === 'list_joined'
          ? t?.list_id
          : kind === 'event'
            ? t?.campaign_id
            : null) as string | null) ?? null,
    triggerEvent: kind === 'event' ? (JOURNEY_EVENTS[t?.event as string] ?? null) : null,
  }
}

export async function activateJourney(ctx: Ctx, id: string) {
  const row = await findJourneyRow(ctx, id)
  assertJourneyState(row, 'activate')
  const now = ctx.clock.now()
  await checkOrThrow(ctx.db, row.clientId, row.nodes, 'activate', now)
  const trigger = triggerColumns(row.nodes as FlowNode[])
  const updated = (
    await ctx.db
      .update(journeys)
      .set({ status: 'active', ...trigger, activatedAt: row.activatedAt ?? now, updatedAt: now })
      .where(eq(journeys.id, id))
      .returning()
  )[0]!
  // segment_entered enrolls contacts who match after activation: those matching now are the baseline.
  if (row.activatedAt === null && trigger.triggerKind === 'segment_entered')
    await baselineSegment(ctx.db, updated, now)
  ctx.workers.wake('flows')
  ctx.workers.wake('send')
  return presentJourney(updated)
}

export async function pauseJourney(ctx: Ctx, id: string) {
  const row = await findJourneyRow(ctx, id)
  assertJourneyState(row, 'pause')
  const updated = (
    await ctx.db
      .update(journeys)
      .set({ status: 'paused', updatedAt: ctx.clock.now() })
      .where(eq(journeys.id, id))
      .returning()
  )[0]!
  return presentJourney(updated)
}

/** Archiving ends every active enrollment (exit_reason archived) and drops unsent messages. */
export async function archiveJourney(ctx: Ctx, id: string) {
  const row = await findJourneyRow(ctx, id)
  assertJourneyState(row, 'archive')
  const now = ctx.clock.now()
  await endEveryRun(ctx.db, id, 'archived', 'journey archived', now)
  await rawRun(ctx.db, sql`DELETE FROM journey_segment_seen WHERE journey_id = ${id}`)
  const updated = (
    await ctx.db
      .update(journeys)
      .set({ status: 'archived', archivedAt: now, updatedAt: now })
      .where(eq(journeys.id, id))
      .returning()
  )[0]!
  return presentJourney(updated)
}
