import type { Db } from './db/client'
import { createHook, type Hook } from './lib/hook'

// The moments core code lets automation react to, fired inside the transaction of the change
// (src/lib/hook.ts). Core fires them and imports nothing of who listens; journeys and
// sequences bind to them once per app (src/services/automation.ts). Payloads are plain data:
// a handler reaches the database through the app it closed over, which is the same connection
// and so the same transaction.

/** Contacts just created (one from the API, a batch from an import). */
export interface ContactsCreated {
  clientId: string
  contactIds: readonly string[]
  at: number
}

/** Contacts that just became members of a list (already members are not in it). */
export interface ListJoined {
  listId: string
  contactIds: readonly string[]
  at: number
}

/** An event just written to the events table (src/services/events/record.ts). */
export interface EventRecorded {
  id: string
  clientId: string
  type: string
  occurredAt: number
  contactId?: string | null
  messageId?: string | null
  campaignId?: string | null
  journeyId?: string | null
  sequenceId?: string | null
  /** Event-specific members, already in webhook form (prefixed ids, ISO timestamps). */
  data: Record<string, unknown>
}

/** A spam complaint about a message (an ARF report). */
export interface Complaint {
  clientId: string
  contactId: string
  messageId: string
  at: number
}

/** A reply to a message, just stored. */
export interface Reply {
  replyId: string
  clientId: string
  contactId: string
  messageId: string
  campaignId: string | null
  journeyId: string | null
  sequenceId: string | null
  at: number
}

export interface Hooks {
  /** contact.created: asked `wants(clientId)` before an import gathers a batch's new ids. */
  readonly contactCreated: Hook<ContactsCreated, string>
  /** list.joined: asked `wants(listId)` before adding members says who joined (RETURNING costs). */
  readonly listJoined: Hook<ListJoined, string>
  /** event.recorded: every event, the reply.received of a reply included. */
  readonly eventRecorded: Hook<EventRecorded>
  readonly complaint: Hook<Complaint>
  readonly reply: Hook<Reply>
}

export function createHooks(): Hooks {
  return {
    contactCreated: createHook('contact.created'),
    listJoined: createHook('list.joined'),
    eventRecorded: createHook('event.recorded'),
    complaint: createHook('complaint'),
    reply: createHook('reply'),
  }
}

/**
 * What a write that fires hooks needs: the database and the app's hooks. Every AppContext and
 * Ctx is one; functions that took only `db` take this, so the hooks are passed, not global.
 */
export interface HookedDb {
  readonly db: Db
  readonly hooks: Hooks
}
