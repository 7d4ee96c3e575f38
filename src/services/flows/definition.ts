import { eq } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { clients, type JourneyRow, journeys, type SequenceRow, sequences } from '../../db/schema'
import type { FlowKind } from '../../lib/enums'
import type { SendingWindow } from '../../lib/sending-window'
import { iso } from '../../lib/time'
import { delayMs, linearNodes, type SequenceStep } from './linear'
import type { FlowNode } from './nodes'

// A flow as the engine runs it, whichever door defined it: its nodes and its options. A
// journey is its graph as written; a sequence is its steps compiled into a line (./linear.ts)
// with the options of cold outreach.

export interface FlowOptions {
  /** A contact may enter again once its earlier enrollment ended. */
  allowReentry: boolean
  /** Only `subscribed` contacts enter (cold outreach never starts with someone who opted out). */
  subscribedOnly: boolean
  /** Sends wait for this window, in the contact's time zone (else the client's, else UTC). */
  sendingWindow: SendingWindow | null
  /** Emails queued per sender and UTC day by this flow's sender, at most. */
  dailyLimit: number | null
  /** The sender of send nodes that name none (null: the client's default). */
  senderId: string | null
  /**
   * Emails after the first continue the run's thread (In-Reply-To, References, `Re:` subject),
   * and a contact who can no longer be written to stops the run instead of skipping its sends.
   */
  outreach: boolean
  /** A reply stops the contact's run (outreach flows). */
  stopOnReply: boolean
}

export interface Flow {
  kind: FlowKind
  id: string
  clientId: string
  name: string
  status: string
  nodes: FlowNode[]
  updatedAt: number
  /** How long after entering a run's first step is due (a sequence's first delay). */
  entryDelayMs: number
  options: FlowOptions
}

export function journeyFlow(row: JourneyRow): Flow {
  return {
    kind: 'journey',
    id: row.id,
    clientId: row.clientId,
    name: row.name,
    status: row.status,
    nodes: row.nodes as FlowNode[],
    updatedAt: row.updatedAt,
    entryDelayMs: 0,
    options: {
      allowReentry: row.allowReentry,
      subscribedOnly: false,
      sendingWindow: null,
      dailyLimit: null,
      senderId: null,
      outreach: false,
      stopOnReply: false,
    },
  }
}

export function sequenceFlow(row: SequenceRow): Flow {
  const steps = row.steps as unknown as SequenceStep[]
  return {
    kind: 'sequence',
    id: row.id,
    clientId: row.clientId,
    name: row.name,
    status: row.status,
    nodes: linearNodes(steps),
    updatedAt: row.updatedAt,
    entryDelayMs: delayMs(steps[0]?.delay) ?? 0,
    options: {
      allowReentry: false,
      subscribedOnly: true,
      sendingWindow: row.sendingWindow ?? null,
      dailyLimit: row.dailyLimit,
      senderId: row.senderId,
      outreach: true,
      stopOnReply: row.stopOnReply,
    },
  }
}

/** A flow and its client's time zone (for waits and windows of contacts without one). */
export async function loadFlow(
  db: Db,
  kind: FlowKind,
  id: string,
): Promise<{ flow: Flow; clientZone: string | null } | null> {
  if (kind === 'journey') {
    const found = (
      await db
        .select({ row: journeys, zone: clients.timezone })
        .from(journeys)
        .innerJoin(clients, eq(clients.id, journeys.clientId))
        .where(eq(journeys.id, id))
        .limit(1)
    )[0]
    return found ? { flow: journeyFlow(found.row), clientZone: found.zone } : null
  }
  const found = (
    await db
      .select({ row: sequences, zone: clients.timezone })
      .from(sequences)
      .innerJoin(clients, eq(clients.id, sequences.clientId))
      .where(eq(sequences.id, id))
      .limit(1)
  )[0]
  return found ? { flow: sequenceFlow(found.row), clientZone: found.zone } : null
}

/** Which table defines a flow id, or null. */
export async function flowKindOf(db: Db, id: string): Promise<FlowKind | null> {
  if ((await db.select({ id: journeys.id }).from(journeys).where(eq(journeys.id, id)).limit(1))[0])
    return 'journey'
  if ((await db.select({ id: sequences.id }).from(sequences).where(eq(sequences.id, id)).limit(1))[0])
    return 'sequence'
  return null
}

export interface Entry {
  /** The node a new run starts at (null: the flow ends at once). */
  node: string | null
  /** When the first step is due. */
  at: number
  /** The history an enrollment starts with, and its current node. */
  history: Record<string, unknown>[]
  current: string | null
}

/**
 * Where a contact entering now starts. A journey passes its trigger (recorded) and goes on at
 * once; a sequence starts at its first step, due after that step's delay.
 */
export function entryOf(flow: Flow, now: number): Entry {
  const trigger = flow.nodes.find((n) => n.type === 'trigger')
  if (trigger) {
    const next = typeof trigger.next === 'string' ? trigger.next : null
    return { node: next, at: now, history: [{ node: trigger.id, at: iso(now) }], current: trigger.id }
  }
  const first = flow.nodes[0]
  if (!first) return { node: null, at: now, history: [], current: null }
  return { node: first.id, at: now + flow.entryDelayMs, history: [], current: null }
}
