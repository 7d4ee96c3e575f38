import type { FlowKind } from '../lib/enums'

// The flow queue's interface (flow-queue.ts on SQLite, postgres/flow-queue.ts on PostgreSQL).

export interface DueRun {
  seq: number
  enrollment_seq: number
  flow_id: string
  contact_id: string
  node_id: string
  next_run_at: number
  wait_event: string | null
  wait_since: number | null
}

export interface StepRecord {
  entries: string[]
  current: string | null
  end: { status: 'completed' | 'exited' | 'stopped'; reason: string | null } | null
}

export interface QueuedMessage {
  id: string
  clientId: string
  kind: FlowKind
  flowId: string
  nodeId: string
  contactId: string
  channel: string
  to: string
  /** Outbox ids of the run's earlier emails this one continues (empty: a new thread). */
  thread: readonly string[]
}

export interface FlowQueue {
  /** The scratch table's name (enrollment fills it with one INSERT … SELECT of the audience). */
  scratch: string
  /** The seq ending the job's next chunk of `size` contacts, or null when none is left. */
  scratchChunkEnd(jobId: string, size: number): Promise<number | null>
  scratchDrop(jobId: string, upTo: number): Promise<void>
  scratchClear(jobId: string): Promise<void>
  activeFlows(): Promise<{ id: string; kind: FlowKind }[]>
  status(flowId: string): Promise<string | null>
  /**
   * The flow's runs due by `now`, oldest first, read in the transaction that steps them: on
   * PostgreSQL each is held until it ends, and runs another process is stepping are passed over.
   */
  due(flowId: string, now: number, limit: number): Promise<DueRun[]>
  nextDue(flowId: string): Promise<number | null>
  moveRun(
    seq: number,
    nodeId: string,
    at: number,
    waitEvent?: string | null,
    waitSince?: number | null,
  ): Promise<void>
  deleteRun(seq: number): Promise<void>
  historyOf(enrollmentSeq: number): Promise<Record<string, unknown>[]>
  /** A step's effect on its enrollment, in one statement. */
  record(enrollmentSeq: number, r: StepRecord, now: number): Promise<void>
  bumpNode(flowId: string, nodeId: string, n: number): Promise<void>
  /** A message of a send node in the outbox; its thread kept beside it when it continues one. */
  queueMessage(m: QueuedMessage, now: number): Promise<number>
  threadOf(messageSeq: number): Promise<string[]>
  eventSince(contactId: string, type: string, since: number): Promise<boolean>
  dailyCount(clientId: string, senderKey: string, day: number): Promise<number>
  bumpDaily(clientId: string, senderKey: string, day: number, n: number): Promise<void>
  laneDue(): Promise<{ id: string; at: number | null }[]>
  claimMessages(flowId: string, now: number, leaseUntil: number, limit: number): Promise<number[]>
  cancelQueued(flowId: string, reason: string): Promise<void>
  cancelContact(flowId: string, contactId: string, reason: string): Promise<void>
  wakeWaiting(contactId: string, eventType: string, now: number): Promise<void>
  /** Ends a contact's active enrollments of a kind and drops their runs; the flows ended. */
  endContact(
    contactId: string,
    kind: FlowKind,
    end: { status: 'exited' | 'stopped'; reason: string | null },
    now: number,
    stopOnReplyOnly?: boolean,
  ): Promise<string[]>
  /** Ends one enrollment (a manual stop) and drops its run. */
  endEnrollment(seq: number, status: 'exited' | 'stopped', reason: string | null, now: number): Promise<void>
  /** The newest enrollment's seq (runs for the ones an INSERT … SELECT adds come after it). */
  maxEnrollmentSeq(): Promise<number>
  /** The newest contact's seq: a chunked enrollment takes the contacts up to it. */
  maxContactSeq(): Promise<number>
}
