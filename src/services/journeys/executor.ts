import { and, eq, inArray } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { type DueRun, journeyQueue, type StepRecord } from '../../db/journey-queue'
import {
  type ContactRow,
  clients,
  contacts,
  type JourneyRow,
  journeys,
  webhookDeliveries,
  webhooks,
} from '../../db/schema'
import { inTransaction } from '../../db/transaction'
import { SLICE_MS } from '../../lib/cooperate'
import { createFailureHolds, pickDue } from '../../lib/due-picker'
import { nextTimeOfDay, parseIsoDuration, parseTimeOfDay } from '../../lib/duration'
import { newId, toPrefixedId } from '../../lib/ids'
import { iso } from '../../lib/time'
import { recordEvent } from '../events/record'
import { addMembers, removeMembers } from '../lists/members'
import { createSuppressionCheck } from '../suppressions/check'
import { contactVariables } from '../templates/variables'
import { enrollNextChunk } from './enroll'
import { JOURNEY_EVENTS, type JourneyNode } from './nodes'
import { type ContactTest, compileContactTest } from './rules-for-contact'

// The journey executor. Each active enrollment's next step is a row of
// journey_runs due at next_run_at. A batch of due rows of one journey is taken and stepped in
// ONE transaction: each node's effect (a message queued in the outbox, a contact updated, a
// list joined, a webhook delivery queued), the history entry, the node counts and the next row
// (or the end) commit together. A crash rolls the whole batch back, so no step is lost and
// none repeats; the outbox then sends each queued message once (same Message-ID on a resend).
// A step runs through the nodes that need no waiting until a wait, a wait_for_event or the end.

/**
 * Contacts a pending segment enrollment enters per transaction. Their first steps come due
 * together, so the chunk bounds how late the last of them starts (a chunk's work, ~0.1 s) and
 * how long the entry holds the event loop; 2,000 held it ~10-45 ms.
 */
const ENTRY_CHUNK = 1_000

/** Nodes one step may pass at most (cycles without a wait are refused on save; this is a guard). */
const MAX_HOPS = 100

export interface StepReport {
  /** Runs stepped. */
  stepped: number
  /** Messages queued (the send worker is woken). */
  queued: number
  /** Webhook deliveries queued. */
  webhooks: number
  /** Contacts entered from pending segment enrollments, and the chunks that took. */
  enrolled: number
  chunks: number
  /** How late each stepped run started, ms past its due time. */
  lateness: number[]
}

export function createJourneyExecutor(app: AppContext) {
  const q = journeyQueue(app.sqlite)
  const isSuppressed = createSuppressionCheck(app.db)
  // Compiled rule tests per journey version and node; recompiled when the journey changes
  // (and every minute, since rules like within_last_days read the time when compiled).
  const tests = new Map<string, { key: string; until: number; test: ContactTest }>()

  function testOf(journey: JourneyRow, node: JourneyNode, now: number): ContactTest {
    const id = `${journey.id}:${node.id}`
    const key = String(journey.updatedAt)
    const hit = tests.get(id)
    if (hit && hit.key === key && hit.until > now) return hit.test
    const test = compileContactTest(app.db, journey.clientId, node, now)
    tests.set(id, { key, until: now + 60_000, test })
    return test
  }

  /**
   * Steps a batch of a journey's due runs in one transaction, in their order, until they are
   * done or `deadline` (performance.now() ms) passes: the transaction then commits the runs
   * stepped so far and the rest stay due. Returns how many were stepped. The batch's figures
   * reach `report` only once it committed: a throw rolls its steps back, so they count for nothing.
   */
  function stepBatch(journeyId: string, runs: DueRun[], report: StepReport, deadline: number): number {
    const tally = { queued: 0, webhooks: 0, lateness: [] as number[] }
    const stepped = inTransaction(app.sqlite, () => {
      // The client's time zone comes with the journey (one join, once a batch): a wait `until`
      // reads a contact without a zone of its own in it (else UTC). A client's change is seen
      // by the next batch.
      const found = app.db
        .select({ journey: journeys, clientZone: clients.timezone })
        .from(journeys)
        .innerJoin(clients, eq(clients.id, journeys.clientId))
        .where(eq(journeys.id, journeyId))
        .get()
      const journey = found?.journey
      // Paused or archived since the runs were read: they wait (or were removed).
      if (!journey || journey.status !== 'active') return 0
      const clientZone = found.clientZone
      const now = app.clock.now()
      const nodes = new Map((journey.nodes as JourneyNode[]).map((n) => [n.id, n]))
      const goals = [...nodes.values()].filter((n) => n.type === 'goal')
      const byId = new Map(
        app.db
          .select()
          .from(contacts)
          .where(inArray(contacts.id, [...new Set(runs.map((r) => r.contact_id))]))
          .all()
          .map((c) => [c.id, c]),
      )
      const counts = new Map<string, number>()
      const count = (nodeId: string) => counts.set(nodeId, (counts.get(nodeId) ?? 0) + 1)

      let stepped = 0
      for (const run of runs) {
        if (stepped > 0 && performance.now() >= deadline) break
        stepped++
        tally.lateness.push(Math.max(0, now - run.next_run_at))
        const contact = byId.get(run.contact_id)
        // What the step does to the enrollment is written once, after the chain (one statement).
        const record: StepRecord = { entries: [], current: null, end: null }
        const history = (entry: Record<string, unknown>, current: string) => {
          record.entries.push(JSON.stringify({ ...entry, at: iso(now) }))
          record.current = current
        }
        const end = (status: 'completed' | 'exited', reason: string | null) => {
          record.end = { status, reason }
          q.deleteRun(run.seq)
        }

        let nodeId: string | null = run.node_id
        // A wait_for_event resolves: the event came (on_event) or the time ran out (on_timeout).
        if (run.wait_event !== null) {
          const node = nodes.get(run.node_id)
          const hit = q.eventSince(run.contact_id, run.wait_event, run.wait_since ?? 0)
          const timeoutAt = (run.wait_since ?? 0) + (parseIsoDuration(String(node?.timeout)) ?? 0)
          if (!hit && now < timeoutAt) {
            q.moveRun(run.seq, run.node_id, timeoutAt, run.wait_event, run.wait_since)
            continue
          }
          history({ node: run.node_id, result: hit ? 'event' : 'timeout' }, run.node_id)
          nodeId = ((hit ? node?.on_event : node?.on_timeout) as string | undefined) ?? null
        }

        let hops = 0
        let parked = false
        while (!parked) {
          if (nodeId === null) {
            end('completed', null)
            break
          }
          const node = nodes.get(nodeId)
          if (!node) {
            // The graph changed under a waiting contact (refused on save; kept as a guard).
            end('exited', 'manual')
            break
          }
          if (!contact) {
            end('exited', 'erased')
            break
          }
          if (contact.status === 'bounced' || contact.status === 'complained') {
            end('exited', contact.status)
            break
          }
          // A goal met at any point ends the journey as a conversion.
          const reached = goals.find((g) => testOf(journey, g, now)(contact.id))
          if (reached) {
            count(reached.id)
            history({ node: reached.id, goal: true }, reached.id)
            end('completed', 'goal')
            break
          }
          if (++hops > MAX_HOPS) {
            q.moveRun(run.seq, nodeId, now)
            break
          }
          count(node.id)
          const next = (typeof node.next === 'string' ? node.next : null) as string | null
          switch (node.type) {
            case 'trigger':
              history({ node: node.id }, node.id)
              nodeId = next
              break
            case 'send': {
              const outcome = send(journey, node, contact, now)
              if (outcome.messageId) tally.queued++
              history(
                outcome.messageId
                  ? { node: node.id, message_id: outcome.messageId }
                  : { node: node.id, skipped: outcome.skipped },
                node.id,
              )
              nodeId = next
              break
            }
            case 'wait': {
              const due =
                typeof node.duration === 'string'
                  ? now + (parseIsoDuration(node.duration) ?? 0)
                  : nextTimeOfDay(
                      now,
                      parseTimeOfDay(String(node.until)) ?? 0,
                      contact.timezone ?? clientZone ?? 'UTC',
                    )
              history({ node: node.id, until: iso(due) }, node.id)
              // A wait already over (PT0S) is not a trip through the queue: the path goes on in
              // this step, so the next node starts at its due time instead of behind every run
              // due meanwhile (still bounded by MAX_HOPS, like any chain).
              if (next === null) nodeId = null
              else if (due <= now) nodeId = next
              else {
                q.moveRun(run.seq, next, due)
                parked = true
              }
              break
            }
            case 'wait_for_event': {
              const type = JOURNEY_EVENTS[String(node.event)] ?? ''
              history({ node: node.id, waiting_for: node.event }, node.id)
              q.moveRun(run.seq, node.id, now + (parseIsoDuration(String(node.timeout)) ?? 0), type, now)
              parked = true
              break
            }
            case 'condition': {
              const yes = testOf(journey, node, now)(contact.id)
              history({ node: node.id, result: yes ? 'yes' : 'no' }, node.id)
              nodeId = ((yes ? node.yes : node.no) as string | undefined) ?? null
              break
            }
            case 'split': {
              const branches = node.branches as { weight: number; next: string; name?: string }[]
              const total = branches.reduce((s, b) => s + b.weight, 0)
              let pick = Math.random() * total
              let chosen = branches.length - 1
              for (const [i, b] of branches.entries()) {
                pick -= b.weight
                if (pick < 0) {
                  chosen = i
                  break
                }
              }
              const b = branches[chosen]!
              history({ node: node.id, branch: chosen, ...(b.name ? { branch_name: b.name } : {}) }, node.id)
              nodeId = b.next
              break
            }
            case 'update_contact':
              updateContact(journey, node, contact, now)
              history({ node: node.id }, node.id)
              nodeId = next
              break
            case 'add_to_list':
              addMembers(app, node.list_id as string, [contact.id], now)
              history({ node: node.id }, node.id)
              nodeId = next
              break
            case 'remove_from_list':
              removeMembers(app.db, node.list_id as string, [contact.id], now)
              history({ node: node.id }, node.id)
              nodeId = next
              break
            case 'webhook': {
              const deliveryId = queueWebhook(journey, node, contact, now)
              if (deliveryId) tally.webhooks++
              history(
                deliveryId
                  ? { node: node.id, delivery_id: deliveryId }
                  : { node: node.id, skipped: 'webhook_gone' },
                node.id,
              )
              nodeId = next
              break
            }
            case 'goal': {
              // Reached on the path and not met (a met goal ended the journey above): go on.
              history({ node: node.id, goal: false }, node.id)
              nodeId = next
              break
            }
            case 'exit':
              history({ node: node.id }, node.id)
              nodeId = null
              break
          }
        }
        if (record.entries.length > 0 || record.end) q.record(run.enrollment_seq, record, now)
      }
      for (const [nodeId, n] of counts) q.bumpNode(journeyId, nodeId, n)
      return stepped
    })
    report.stepped += stepped
    report.queued += tally.queued
    report.webhooks += tally.webhooks
    report.lateness.push(...tally.lateness)
    return stepped
  }

  /** A send node: a message in the one outbox, or the reason it is skipped. */
  function send(journey: JourneyRow, node: JourneyNode, contact: ContactRow, now: number) {
    const channel = (node.channel as string) ?? 'email'
    if (contact.status !== 'subscribed') return { messageId: null, skipped: `contact_${contact.status}` }
    if (channel === 'email' && isSuppressed(journey.clientId, contact.email))
      return { messageId: null, skipped: 'suppressed' }
    if (channel !== 'email' && !contact.phone) return { messageId: null, skipped: 'no_phone' }
    const id = newId()
    q.queueMessage(
      id,
      journey.clientId,
      journey.id,
      node.id,
      contact.id,
      channel,
      channel === 'email' ? contact.email : contact.phone!,
      now,
    )
    return { messageId: id, skipped: null }
  }

  function updateContact(journey: JourneyRow, node: JourneyNode, contact: ContactRow, now: number) {
    const f = node.fields as Record<string, unknown>
    const set: Partial<ContactRow> = { updatedAt: now }
    if (f.first_name !== undefined) set.firstName = f.first_name as string | null
    if (f.last_name !== undefined) set.lastName = f.last_name as string | null
    if (f.company !== undefined) set.company = f.company as string | null
    if (f.timezone !== undefined) set.timezone = f.timezone as string | null
    if (f.status !== undefined) set.status = f.status as ContactRow['status']
    if (f.custom_fields !== undefined) {
      const merged = { ...contact.customFields }
      for (const [k, v] of Object.entries(f.custom_fields as Record<string, unknown>))
        if (v === null) delete merged[k]
        else merged[k] = v
      set.customFields = merged
    }
    app.db.update(contacts).set(set).where(eq(contacts.id, contact.id)).run()
    if (set.status === 'unsubscribed' && contact.status !== 'unsubscribed')
      recordEvent(app, {
        clientId: journey.clientId,
        type: 'contact.unsubscribed',
        contactId: contact.id,
        journeyId: journey.id,
        occurredAt: now,
        data: {
          contact_id: toPrefixedId('contact', contact.id),
          email: contact.email,
          campaign_id: null,
          journey_id: toPrefixedId('journey', journey.id),
          message_id: null,
          source: 'journey',
          unsubscribed_at: iso(now),
        },
      })
    Object.assign(contact, set)
  }

  /** A webhook node: a signed POST queued for the webhook worker (retries, SSRF guard, log). */
  function queueWebhook(
    journey: JourneyRow,
    node: JourneyNode,
    contact: ContactRow,
    now: number,
  ): string | null {
    const webhookId = node.webhook_id as string
    const hook = app.db
      .select({ id: webhooks.id })
      .from(webhooks)
      .where(and(eq(webhooks.id, webhookId), eq(webhooks.clientId, journey.clientId)))
      .get()
    if (!hook) return null
    const eventId = newId()
    const payload = JSON.stringify({
      id: toPrefixedId('event', eventId),
      type: 'journey.webhook',
      created_at: iso(now),
      data: {
        journey_id: toPrefixedId('journey', journey.id),
        node_id: node.id,
        contact_id: toPrefixedId('contact', contact.id),
        email: contact.email,
        contact: contactVariables(contact),
      },
    })
    const id = newId()
    app.db
      .insert(webhookDeliveries)
      .values({
        id,
        webhookId,
        clientId: journey.clientId,
        eventId,
        eventType: 'journey.webhook',
        test: false,
        payload,
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        createdAt: now,
        updatedAt: now,
      })
      .run()
    return id
  }

  // A flow whose batch threw is held back with a growing delay (src/lib/due-picker.ts).
  const holds = createFailureHolds()

  /**
   * One pass, about `budgetMs` of synchronous work (the worker yields a turn of the event loop
   * between passes, so requests and the send queue's slices interleave with it). Due runs
   * first, in due-time order: each batch is of the active journey whose oldest due run is the
   * oldest, so a journey with a backlog never starves another, and a batch stops at the budget
   * (the rest stay due). Only when nothing is due does a pending segment enrollment enter its
   * next chunk of ENTRY_CHUNK (one transaction); that chunk's first steps are then due and go next.
   * So a large enrollment enters at the pace the executor takes its steps: its contacts'
   * first steps start within about a chunk's work of entering, and the due steps of other
   * journeys (waits ending, events) never queue behind 100,000 entries.
   */
  function pass(batch = 200, budgetMs = SLICE_MS): StepReport & { nextAt: number | null } {
    const report: StepReport = { stepped: 0, queued: 0, webhooks: 0, enrolled: 0, chunks: 0, lateness: [] }
    const deadline = performance.now() + budgetMs
    let nextAt: number | null = null
    let active = new Set(q.activeJourneys())
    let enrolling = true
    // At least one step batch (of at least one run) or one chunk a pass, whatever the budget.
    for (let first = true; first || performance.now() < deadline; first = false) {
      const now = app.clock.now()
      const due = pickDue(active, q.nextDue, now, holds)
      const pick = due.pick
      nextAt = due.nextAt
      if (pick !== null) {
        // A throw rolls the batch back (its runs stay due) and holds the journey back, so the
        // other journeys go on.
        const stepped = holds.attempt(
          pick,
          now,
          () => stepBatch(pick, q.due(pick, now, batch), report, deadline),
          (retryAt, err) =>
            app.log.error('journey step failed; its due runs wait', {
              journey_id: pick,
              retry_at: iso(retryAt),
              error: String((err as Error)?.stack ?? err),
            }),
        )
        // Not active any more (paused since the list was read) or held: its runs wait.
        if (stepped === 0) active.delete(pick)
        continue
      }
      if (!enrolling) break
      const n = inTransaction(app.sqlite, () => enrollNextChunk(app, ENTRY_CHUNK))
      if (n === null) {
        enrolling = false
        break
      }
      report.enrolled += n
      report.chunks++
      // The chunk's journey may have been activated since the list was read.
      if (n > 0) active = new Set(q.activeJourneys())
    }
    if (report.queued > 0) app.workers.wake('send')
    if (report.webhooks > 0) app.workers.wake('webhooks')
    return { ...report, nextAt }
  }

  return { pass }
}
