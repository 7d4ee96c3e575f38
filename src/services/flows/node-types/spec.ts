import type { ContactRow } from '../../../db/schema'
import type { FieldError } from '../../../errors'
import type { Awaitable } from '../../../lib/awaitable'
import type { IdKind } from '../../../lib/ids'
import type { Flow } from '../definition'
import type { FlowNode } from '../nodes'

// What a node type is, in one place: the members it takes and how they are checked when a
// journey is saved, the members that must lead somewhere before activation, and what a run
// does when it reaches the node. Each type is a file of this folder, listed in ./index.ts.

/** What the checks look up in the database, for the flow's own client. */
export interface GraphRefs {
  /** The template's channel, or null when the client has no such template. */
  templateChannel(id: string): string | null
  sender(id: string): boolean
  list(id: string): boolean
  segment(id: string): boolean
  webhook(id: string): boolean
  campaign(id: string): boolean
  /** Rule groups checked as a segment's (errors with paths below `rule_groups`). */
  rules(match: 'all' | 'any', groups: unknown): FieldError[]
  timeZone(name: string): boolean
}

/** The checks a node type's members get, each failure naming `nodes[<id>].<member>`. */
export interface MemberCheck {
  readonly node: Record<string, unknown>
  readonly refs: GraphRefs
  err(member: string, message: string): void
  /** A reference member: an id of a record the lookup finds; returns the UUID. */
  ref(member: string, what: IdKind, exists: (id: string) => boolean, required: boolean): string | null
  /** `match` and `rule_groups`, as a segment's. */
  rules(): void
  /** `event`, one of the events a flow may wait for or start on. */
  event(required: boolean): void
}

/** A run stops here for now: it waits (its run row moved) or it ended. */
export const PARKED = Symbol('parked')
export type Parked = typeof PARKED

export interface End {
  status: 'completed' | 'exited' | 'stopped'
  reason: string | null
}

/** What a node's step may use: the run, its contact and the batch it is stepped in. */
export interface StepScope {
  readonly flow: Flow
  readonly contact: ContactRow
  readonly now: number
  /** The client's time zone (for contacts without one), or null: UTC. */
  readonly clientZone: string | null
  /** Counts the node as passed. */
  count(node: FlowNode): void
  /** Appends an entry to the run's history; `current` becomes the run's current node. */
  history(entry: Record<string, unknown>, current: string): void
  /** The run waits: due at `at` at `nodeId` (and for an event, since `since`). */
  park(nodeId: string, at: number, waitEvent?: string | null, since?: number | null): Awaitable<Parked>
  end(e: End): Awaitable<Parked>
  /** The node's rule groups hold for the contact now. */
  test(node: FlowNode): Awaitable<boolean>
  /** Whether the event of this contact came since `since`. */
  eventSince(type: string, since: number): Awaitable<boolean>
  readonly sending: {
    suppressed(email: string): Awaitable<boolean>
    /** Takes one of the flow's sends for today; false when the daily limit is reached. */
    takeDaily(): Awaitable<boolean>
    /** The run's earlier emails this one continues (outreach flows). */
    thread(node: FlowNode): Awaitable<string[]>
    queueMessage(node: FlowNode, thread: readonly string[]): Awaitable<string>
    deferred(): Awaitable<void>
  }
  readonly act: {
    queueWebhook(node: FlowNode): Awaitable<string | null>
    apply(node: FlowNode): Awaitable<void>
  }
}

export interface NodeSpec {
  /** Members it takes besides `id`, `type`, `label` and `position`. */
  readonly members: readonly string[]
  /** Members that must name a node before the flow is activated (each path must end). */
  readonly branches?: readonly string[]
  /** A run may wait here, so a cycle through it is not a busy loop. */
  readonly waits?: boolean
  check?(c: MemberCheck): void
  /** What a run does here: the next node (null: the end), or PARKED. */
  step(s: StepScope, node: FlowNode): Awaitable<string | null | Parked>
  /** A run waiting here comes due: where it goes on (a wait for an event resolves). */
  resume?(
    s: StepScope,
    node: FlowNode,
    run: { wait_event: string; wait_since: number | null },
  ): Awaitable<string | null | Parked>
}

/** The node's `next`, or null. */
export const nextOf = (node: FlowNode) => (typeof node.next === 'string' ? node.next : null)
