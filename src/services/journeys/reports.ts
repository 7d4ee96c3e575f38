import { sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { rawRows } from '../../db/raw'
import { listFlowEnrollments } from '../flows/enrollments'
import { messageStatsByNode } from '../flows/message-stats'
import type { FlowNode } from '../flows/nodes'
import type { ListEnrollmentsQuery } from './inputs'
import { findJourneyRow } from './lifecycle'
import { presentEnrollment } from './present'

// What a journey did: its enrollments (each contact's path) and its stats.

export async function listEnrollments(ctx: Ctx, id: string, page: ListEnrollmentsQuery) {
  const journey = await findJourneyRow(ctx, id)
  return await listFlowEnrollments(
    ctx,
    journey.id,
    `journey_enrollments:${journey.id}`,
    page,
    presentEnrollment,
  )
}

export async function journeyStats(ctx: Ctx, id: string) {
  const journey = await findJourneyRow(ctx, id)
  // Counts arrive as strings on PostgreSQL (bigint): Number() them.
  const byStatus = (
    await rawRows<{ status: string; end_reason: string | null; n: number }>(
      ctx.db,
      sql`SELECT status, end_reason, count(*) AS n FROM flow_enrollments WHERE flow_id = ${journey.id} GROUP BY status, end_reason`,
    )
  ).map((r) => ({ ...r, n: Number(r.n) }))
  const sum = (f: (r: { status: string; end_reason: string | null }) => boolean) =>
    byStatus.filter(f).reduce((s, r) => s + r.n, 0)
  const passed = new Map(
    (
      await rawRows<{ node_id: string; passed: number }>(
        ctx.db,
        sql`SELECT node_id, passed FROM flow_node_counts WHERE flow_id = ${journey.id}`,
      )
    ).map((r) => [r.node_id, Number(r.passed)]),
  )
  // Waiting at a node = active enrollments whose current_node it is, the node the enrollments
  // list names. Not flow_runs.node_id: a run parked in a `wait` already points at the node
  // after it (that is where it resumes), so it would count the contact one node too far.
  const waiting = new Map(
    (
      await rawRows<{ node_id: string; n: number }>(
        ctx.db,
        sql`SELECT current_node AS node_id, count(*) AS n FROM flow_enrollments
            WHERE flow_id = ${journey.id} AND status = 'active' GROUP BY current_node`,
      )
    ).map((r) => [r.node_id, Number(r.n)]),
  )
  const messagesOf = await messageStatsByNode(ctx.db, journey.id)
  const exitReasons: Record<string, number> = {}
  for (const r of byStatus)
    if (r.end_reason) exitReasons[r.end_reason] = (exitReasons[r.end_reason] ?? 0) + r.n
  return {
    journey_id: journey.id,
    client_id: journey.clientId,
    status: journey.status,
    entered: sum(() => true),
    active: sum((r) => r.status === 'active'),
    completed: sum((r) => r.status === 'completed'),
    exited: sum((r) => r.status === 'exited'),
    goal_conversions: sum((r) => r.end_reason === 'goal'),
    exit_reasons: exitReasons,
    nodes: (journey.nodes as FlowNode[]).map((n) => {
      const { queued, sent, delivered, opened, clicked, bounced, failed } = messagesOf(n.id)
      return {
        id: n.id,
        type: n.type,
        passed: passed.get(n.id) ?? 0,
        waiting: waiting.get(n.id) ?? 0,
        ...(n.type === 'send'
          ? { messages: { queued, sent, delivered, opened, clicked, bounced, failed } }
          : {}),
      }
    }),
  }
}
