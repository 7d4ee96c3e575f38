import { inArray } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { flowQueue, type StepRecord } from '../../db/flow-queue'
import { FLOW_DAILY_LOCK } from '../../db/postgres/lock-keys'
import { type ContactRow, contacts } from '../../db/schema'
import { inTransaction } from '../../db/transaction'
import { holdWorkLock } from '../../db/work-lock'
import { SLICE_MS } from '../../lib/cooperate'
import { createFailureHolds, pickDue } from '../../lib/due-picker'
import type { FlowKind } from '../../lib/enums'
import { utcDay } from '../../lib/sending-window'
import { iso } from '../../lib/time'
import { createSuppressionCheck } from '../suppressions/check'
import { type Flow, loadFlow } from './definition'
import { enrollmentsPending, enterNextChunk } from './enroll'
import { createNodeActions } from './node-actions'
import { NODE_SPECS } from './node-types'
import { type End, PARKED, type Parked, type StepScope } from './node-types/spec'
import type { FlowNode } from './nodes'
import { type ContactTest, compileContactTest } from './rules-for-contact'

// The flow executor. Each active enrollment's next step is a row of flow_runs due at
// next_run_at. A batch of due rows of one flow is taken and stepped in ONE transaction: each
// node's effect (a message queued in the outbox, a contact updated, a list joined, a webhook
// delivery queued), the history entry, the node counts and the next row (or the end) commit
// together. A crash rolls the whole batch back, so no step is lost and none repeats; the outbox
// then sends each queued message once (same Message-ID on a resend). A step runs through the
// nodes that need no waiting until a wait, a wait_for_event, a closed sending window or the end.
// What each node type does is its own file in ./node-types/.

/** Nodes one step may pass at most (cycles without a wait are refused on save; this is a guard). */
const MAX_HOPS = 100

export interface StepReport {
  /** Runs stepped. */
  stepped: number
  /** Messages queued (the send worker is woken). */
  queued: number
  /** Webhook deliveries queued. */
  webhooks: number
  /** Sends held back by a sending window or a daily limit. */
  deferred: number
  /** Contacts entered from chunked enrollments, and the chunks that took. */
  enrolled: number
  chunks: number
  /** How late each stepped run started, ms past its due time. */
  lateness: number[]
}

/** A contact who can no longer be written to ends the run: how, by the flow's kind of audience. */
function endFor(flow: Flow, contact: ContactRow | undefined): End | null {
  if (!flow.options.outreach) {
    if (!contact) return { status: 'exited', reason: 'erased' }
    if (contact.status === 'bounced' || contact.status === 'complained')
      return { status: 'exited', reason: contact.status }
    return null
  }
  if (!contact) return { status: 'exited', reason: null }
  switch (contact.status) {
    case 'subscribed':
      return null
    case 'bounced':
      return { status: 'stopped', reason: 'bounced' }
    case 'unsubscribed':
    case 'complained':
      // A spam complaint is the strongest opt-out.
      return { status: 'stopped', reason: 'unsubscribed' }
    default:
      // Blocked by an operator: not the contact's answer to this outreach; it ends it.
      return { status: 'exited', reason: null }
  }
}

/** How long a pass that found a flow's due runs all taken by another process waits to look again. */
const ELSEWHERE_MS = 50

export function createFlowExecutor(app: AppContext) {
  const q = flowQueue(app.db)
  const isSuppressed = createSuppressionCheck(app.db)
  const actions = createNodeActions(app)
  // Compiled rule tests per flow version and node; recompiled when the flow changes (and every
  // minute, since rules like within_last_days read the time when compiled).
  const tests = new Map<string, { key: string; until: number; test: ContactTest }>()

  async function testOf(flow: Flow, node: FlowNode, now: number): Promise<ContactTest> {
    const id = `${flow.id}:${node.id}`
    const key = String(flow.updatedAt)
    const hit = tests.get(id)
    if (hit && hit.key === key && hit.until > now) return hit.test
    const test = await compileContactTest(app.db, flow.clientId, node, now)
    tests.set(id, { key, until: now + 60_000, test })
    return test
  }

  /**
   * Steps a batch of a flow's due runs in one transaction, in their order, until they are done
   * or `deadline` (performance.now() ms) passes: the transaction then commits the runs stepped
   * so far and the rest stay due. Returns how many were stepped. The batch's figures reach
   * `report` only once it committed: a throw rolls its steps back, so they count for nothing.
   */
  async function stepBatch(
    kind: FlowKind,
    flowId: string,
    due: { at: number; limit: number },
    report: StepReport,
    deadline: number,
  ) {
    const tally = { queued: 0, webhooks: 0, deferred: 0, lateness: [] as number[] }
    const stepped = await inTransaction(app.sqlite, async () => {
      // The client's time zone comes with the flow (once a batch): a wait `until` and a sending
      // window read a contact without a zone of its own in it (else UTC).
      const found = await loadFlow(app.db, kind, flowId)
      // Paused or archived since the flows were listed: its runs wait (or were removed).
      if (!found || found.flow.status !== 'active') return 0
      const { flow, clientZone } = found
      const now = app.clock.now()
      // The daily limit's count for the flow's sender, read once a batch and kept here. Another
      // process stepping a flow of the same sender waits here until it has added its own; taken
      // before the runs, so no batch waits for it holding runs that events may need to end.
      const senderKey = flow.options.senderId ?? 'default'
      const day = utcDay(now)
      const limit = flow.options.dailyLimit
      if (limit !== null) await holdWorkLock(app.db, FLOW_DAILY_LOCK, `${flow.clientId}:${senderKey}:${day}`)
      // Read here, in the transaction that steps them: another process stepping this flow at
      // the same time takes other runs.
      const runs = await q.due(flowId, due.at, due.limit)
      if (runs.length === 0) return null
      const nodes = new Map(flow.nodes.map((n) => [n.id, n]))
      const goals = flow.nodes.filter((n) => n.type === 'goal')
      const firstEmail = flow.nodes.find(
        (n) => n.type === 'send' && ((n.channel as string) ?? 'email') === 'email',
      )
      const byId = new Map(
        (
          await app.db
            .select()
            .from(contacts)
            .where(inArray(contacts.id, [...new Set(runs.map((r) => r.contact_id))]))
        ).map((c) => [c.id, c]),
      )
      const counts = new Map<string, number>()
      const count = (nodeId: string) => counts.set(nodeId, (counts.get(nodeId) ?? 0) + 1)
      let sentToday = limit === null ? 0 : await q.dailyCount(flow.clientId, senderKey, day)
      const sentBefore = sentToday

      let stepped = 0
      for (const run of runs) {
        if (stepped > 0 && performance.now() >= deadline) break
        stepped++
        tally.lateness.push(Math.max(0, now - run.next_run_at))
        const contact = byId.get(run.contact_id)
        // What the step does to the enrollment is written once, after the chain (one statement).
        const record: StepRecord = { entries: [], current: null, end: null }
        const end = async (e: End): Promise<Parked> => {
          record.end = e
          await q.deleteRun(run.seq)
          return PARKED
        }
        // The run's earlier emails, read once when an outreach email continues its thread (the
        // flow's first email node starts one: nothing is read for it).
        let thread: string[] | null = null
        const scope: StepScope | null = contact
          ? {
              flow,
              contact,
              now,
              clientZone,
              count: (node) => count(node.id),
              history(entry, current) {
                record.entries.push(JSON.stringify({ ...entry, at: iso(now) }))
                record.current = current
              },
              async park(nodeId, at, waitEvent = null, since = null): Promise<Parked> {
                await q.moveRun(run.seq, nodeId, at, waitEvent, since)
                return PARKED
              },
              end,
              test: async (node) => (await testOf(flow, node, now))(contact.id),
              eventSince: async (type, since) => await q.eventSince(contact.id, type, since),
              sending: {
                suppressed: async (email) => await isSuppressed(flow.clientId, email),
                takeDaily() {
                  if (limit === null) return true
                  if (sentToday >= limit) return false
                  sentToday++
                  return true
                },
                async thread(node) {
                  thread ??=
                    node === firstEmail
                      ? []
                      : (await q.historyOf(run.enrollment_seq))
                          .filter((h) => h.channel === 'email' && typeof h.message_id === 'string')
                          .map((h) => h.message_id as string)
                  return thread
                },
                async queueMessage(node, earlier) {
                  tally.queued++
                  return await actions.queueMessage(flow, node, contact, now, earlier)
                },
                deferred: () => void tally.deferred++,
              },
              act: {
                async queueWebhook(node) {
                  const id = await actions.queueWebhook(flow, node, contact, now)
                  if (id) tally.webhooks++
                  return id
                },
                apply: async (node) => await actions.apply(flow, node, contact, now),
              },
            }
          : null

        let next: string | null | Parked = run.node_id
        // A run waiting at a node comes due: the node says where it goes on (an event came, or
        // the time ran out).
        const waitingAt = nodes.get(run.node_id)
        if (run.wait_event !== null && scope && waitingAt)
          next =
            (await NODE_SPECS[waitingAt.type].resume?.(scope, waitingAt, {
              wait_event: run.wait_event,
              wait_since: run.wait_since,
            })) ?? next

        let hops = 0
        while (next !== PARKED) {
          if (next === null) {
            await end({ status: 'completed', reason: null })
            break
          }
          const node = nodes.get(next)
          if (!node) {
            // A journey's graph changed under a waiting contact (refused on save; kept as a
            // guard); a sequence's steps were shortened while it waited: it is done.
            await end(
              flow.options.outreach
                ? { status: 'completed', reason: null }
                : { status: 'exited', reason: 'manual' },
            )
            break
          }
          const ended = endFor(flow, contact)
          if (ended || !scope) {
            await end(ended ?? { status: 'exited', reason: null })
            break
          }
          // A goal met at any point ends the flow as a conversion.
          let reached: FlowNode | undefined
          for (const g of goals)
            if (await scope.test(g)) {
              reached = g
              break
            }
          if (reached) {
            count(reached.id)
            scope.history({ node: reached.id, goal: true }, reached.id)
            await end({ status: 'completed', reason: 'goal' })
            break
          }
          if (++hops > MAX_HOPS) {
            await q.moveRun(run.seq, node.id, now)
            break
          }
          next = await NODE_SPECS[node.type].step(scope, node)
        }
        if (record.entries.length > 0 || record.end) await q.record(run.enrollment_seq, record, now)
      }
      for (const [nodeId, n] of counts) await q.bumpNode(flowId, nodeId, n)
      if (sentToday > sentBefore) await q.bumpDaily(flow.clientId, senderKey, day, sentToday - sentBefore)
      return stepped
    })
    // Its due runs were all being stepped by another process.
    if (stepped === null) return null
    report.stepped += stepped
    if (stepped > 0) app.metrics.flowSteps.inc({ kind }, stepped)
    report.queued += tally.queued
    report.webhooks += tally.webhooks
    report.deferred += tally.deferred
    report.lateness.push(...tally.lateness)
    return stepped
  }

  // A flow whose batch threw is held back with a growing delay (src/lib/due-picker.ts).
  const holds = createFailureHolds()

  /**
   * One pass, about `budgetMs` of synchronous work (the worker yields a turn of the event loop
   * between passes, so requests and the send queue's slices interleave with it). Due runs
   * first, in due-time order: each batch is of the active flow whose oldest due run is the
   * oldest, so a flow with a backlog never starves another, and a batch stops at the budget
   * (the rest stay due). Only when nothing is due does a pending chunked enrollment enter its
   * next chunk (one transaction); that chunk's first steps are then due and go next. So a large
   * enrollment enters at the pace the executor takes its steps, and the due steps of other flows
   * (waits ending, events) never queue behind 100,000 entries.
   */
  async function pass(batch = 200, budgetMs = SLICE_MS): Promise<StepReport & { nextAt: number | null }> {
    const report: StepReport = {
      stepped: 0,
      queued: 0,
      webhooks: 0,
      deferred: 0,
      enrolled: 0,
      chunks: 0,
      lateness: [],
    }
    const deadline = performance.now() + budgetMs
    let nextAt: number | null = null
    let takenElsewhere = false
    let kinds = new Map((await q.activeFlows()).map((f) => [f.id, f.kind]))
    let active = new Set(kinds.keys())
    // At least one step batch (of at least one run) or one chunk a pass, whatever the budget.
    for (let first = true; first || performance.now() < deadline; first = false) {
      const now = app.clock.now()
      const due = await pickDue(active, q.nextDue, now, holds)
      const pick = due.pick
      nextAt = due.nextAt
      if (pick !== null) {
        // A throw rolls the batch back (its runs stay due) and holds the flow back, so the
        // other flows go on.
        const stepped = await holds.attempt(
          pick,
          now,
          async () => {
            const stepped = await stepBatch(
              kinds.get(pick)!,
              pick,
              { at: now, limit: batch },
              report,
              deadline,
            )
            if (stepped !== null) return stepped
            takenElsewhere = true
            return 0
          },
          (retryAt, err) =>
            app.log.error(`${kinds.get(pick)} step failed; its due runs wait`, {
              [`${kinds.get(pick)}_id`]: pick,
              retry_at: iso(retryAt),
              error: String((err as Error)?.stack ?? err),
            }),
        )
        // Not active any more (paused since the list was read), held, or stepped by another
        // process: its runs wait.
        if (stepped === 0) active.delete(pick)
        continue
      }
      if (!(await enrollmentsPending(app.db))) break
      const n = await inTransaction(app.sqlite, async () => await enterNextChunk(app))
      if (n === null) break
      report.enrolled += n
      report.chunks++
      // The chunk's flow may have been activated since the list was read.
      if (n > 0) {
        kinds = new Map((await q.activeFlows()).map((f) => [f.id, f.kind]))
        active = new Set(kinds.keys())
      }
    }
    if (report.queued > 0) app.workers.wake('send')
    if (report.webhooks > 0) app.workers.wake('webhooks')
    // Runs another process is stepping were passed over: look again within ELSEWHERE_MS (sooner
    // when another flow is due), not only at the idle poll, and not at once and again.
    if (takenElsewhere) nextAt = Math.min(nextAt ?? Number.POSITIVE_INFINITY, app.clock.now() + ELSEWHERE_MS)
    return { ...report, nextAt }
  }

  return { pass }
}
