import type { Static, TSchema } from '@sinclair/typebox'
import type { Ctx } from '../../context'
import type { Scope } from '../../lib/scopes'
import type { Upload } from '../../lib/upload'
import type { FieldError } from '../../lib/validate'

// A verb declares itself once (STYLE.md, "One verb, many doors"): its name, the scope it needs,
// the schema of its one input object, whether it changes state, and what it does. `invoke`
// (./invoke.ts) applies that policy the same way for every door: REST, portal, MCP, CLI, jobs.

/** `any` = any authenticated caller; `public` = no credential (health, well-known documents). */
export type VerbScope = Scope | 'any' | 'public'

/** What a door hands a verb besides its JSON input. */
export interface VerbExtras {
  /** A large body already on disk (CSV import, raw MIME). */
  upload?: Upload
}

export interface Verb<I extends TSchema = TSchema, R = unknown, P = undefined> {
  /** `<entity>.<action>`: `campaigns.launch`. */
  readonly name: string
  readonly scope: VerbScope
  /** One object: record ids, filters and body members together (as MCP tools take them). */
  readonly input: I
  /** Changes state: runs in a transaction, and a read-only portal user may not call it. */
  readonly mutates: boolean
  /** Sends, deletes or cancels something that cannot be taken back (MCP `destructiveHint`). */
  readonly destructive?: boolean
  /**
   * Changes only the calling portal user's own account (password, time zone): every role may,
   * in any workspace, so a viewer can still change their password.
   */
  readonly ownAccount?: boolean
  /**
   * Members of the answer that hold a secret shown this once (a new key, a signing secret). A
   * door that stores the answer for replay (Idempotency-Key) stores them masked, never in clear.
   */
  readonly secrets?: readonly string[]
  /**
   * Checks of single members the schema cannot express (a phone number that parses, a known
   * time zone), without the database. `invoke` runs them with the schema, on the members the
   * schema accepted, so one 422 lists every failing member. Members may be missing.
   */
  check?(input: Partial<Static<I>>): FieldError[]
  /**
   * Network or file I/O the verb needs before it writes (DNS look-ups, an HTTP attempt, parsing
   * MIME), or a long read whose answer need not be exact in the transaction (a sequence
   * enrollment's audience count). Runs outside any transaction and writes nothing.
   */
  prepare?(ctx: Ctx, input: Static<I>, extras: VerbExtras): Promise<P>
  /**
   * Undoes what prepare put on disk (an upload moved into place) when the verb's transaction did
   * not commit: the rows that would name it were rolled back.
   */
  discard?(prepared: P): void
  /**
   * The verb itself: all its writes and events commit in one transaction. It awaits the store
   * only; network or file I/O belongs in prepare.
   */
  run(ctx: Ctx, input: Static<I>, prepared: P, extras: VerbExtras): R | Promise<R>
}

export type AnyVerb = Verb<TSchema, unknown, unknown>

export function defineVerb<I extends TSchema, R, P = undefined>(verb: Verb<I, R, P>): Verb<I, R, P> {
  return verb
}

/** A file a verb produces as a stream (a CSV export): each door decides how to deliver it. */
export interface Download {
  readonly kind: 'download'
  readonly contentType: string
  readonly filename: string
  readonly body: ReadableStream<Uint8Array>
}
