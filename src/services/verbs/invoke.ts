import type { Static, TSchema } from '@sinclair/typebox'
import type { Ctx } from '../../context'
import { inRetriedTransaction } from '../../db/transaction'
import { type FieldError, forbidden, notFound, ServiceError, validationFailed } from '../../errors'
import { parseId } from '../../lib/ids'
import { hasScope, OAUTH_SCOPES, type Scope } from '../../lib/scopes'
import { validate } from '../../lib/validate'
import type { Actor } from '../actors/actor'
import type { Verb, VerbExtras } from './define'

// The one way into a verb, whatever the door. In order: may this actor call it (scope; for
// portal users also role and workspace), is the input valid (every failing member listed),
// then any I/O the verb declares, then the verb in one transaction — a savepoint when the
// caller already holds one — with its events. The verb's run may await the store; it should
// await nothing else, since it holds the writer while it runs. Errors are typed ServiceErrors; each door maps
// them to its own answer (REST error body, MCP isError, CLI message).

export interface InvokeOptions {
  extras?: VerbExtras
  /**
   * Runs inside the verb's transaction with its result, so something the door must store with
   * the change (the REST door's idempotent response) commits or rolls back with it.
   */
  atCommit?(result: unknown): void | Promise<void>
}

/** Throws 401/403 when the actor may not call the verb. Doors call it early to order their errors. */
/** Entities whose reads an OAuth token makes with a read scope other than `<entity>:read`. */
const OAUTH_READ_OF: Record<string, Scope> = {
  deliverability: 'analytics:read',
  suppressions: 'compliance:read',
}

/**
 * What any valid API key may call (reads the spec gives no scope) needs a scope from
 * an OAuth token, which holds nothing else: the entity's own read scope when the OAuth subset has
 * one (`contacts:read` for contacts.list), else `campaigns:read`.
 */
function oauthReadScope(verbName: string): Scope {
  const entity = verbName.split('.', 1)[0]!
  const own = OAUTH_READ_OF[entity] ?? `${entity}:read`
  return (OAUTH_SCOPES as readonly string[]).includes(own) ? (own as Scope) : 'campaigns:read'
}

/**
 * The scopes an OAuth token may hold to call what any API key may: the spec's default for
 * operations without a scope of their own, `campaigns:read`, or the entity's own read scope.
 */
export function oauthReadScopes(verbName: string): Scope[] {
  const own = oauthReadScope(verbName)
  return own === 'campaigns:read' ? [own] : ['campaigns:read', own]
}

export function authorize(verb: Pick<Verb, 'name' | 'scope' | 'mutates' | 'ownAccount'>, actor: Actor): void {
  if (verb.scope === 'public') return
  if (actor.kind === 'anonymous') throw new ServiceError('UNAUTHORIZED', 'A credential is required')
  if (verb.scope === 'any' && actor.kind === 'oauth') {
    const accepted = oauthReadScopes(verb.name)
    if (!accepted.some((s) => hasScope(actor.scopes, s)))
      throw forbidden(
        `This operation requires the scope campaigns:read${accepted[1] ? ` (or ${accepted[1]})` : ''}`,
        { required_scope: 'campaigns:read' },
      )
  } else if (verb.scope !== 'any' && !hasScope(actor.scopes, verb.scope))
    throw forbidden(`This operation requires the scope ${verb.scope}`, { required_scope: verb.scope })
  const user = actor.user
  if (!user || verb.ownAccount) return
  if (verb.mutates && user.role === 'viewer')
    throw forbidden('A viewer can look but not change anything', { role: user.role })
  if (user.clients !== null && (actor.clientId === null || !user.clients.includes(actor.clientId)))
    throw forbidden('Choose one of your workspaces first', { role: user.role })
}

/** The members of an input that name records (`RecordId`), found once per schema. */
const recordIdMembers = new WeakMap<TSchema, string[]>()
function recordIdsOf(schema: TSchema): string[] {
  let names = recordIdMembers.get(schema)
  if (!names) {
    const properties = (schema.properties ?? {}) as Record<string, TSchema>
    names = Object.keys(properties).filter((n) => properties[n]!['x-record-id'] === true)
    recordIdMembers.set(schema, names)
  }
  return names
}

/** The top-level member a field error is about: `rule_groups[0].match` → `rule_groups`. */
const memberOf = (field: string) => field.split(/[.[]/, 1)[0]!

/**
 * The verb's own member checks, run on the members the schema accepted (a member that failed
 * the schema is left out, so a check sees only well-typed values) and reported once per field.
 */
function semanticErrors(verb: Verb<TSchema, unknown, unknown>, value: unknown, schemaErrors: FieldError[]) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return []
  const failed = new Set(schemaErrors.map((e) => memberOf(e.field)))
  if (failed.has('input')) return []
  const accepted = Object.fromEntries(Object.entries(value).filter(([name]) => !failed.has(name)))
  return verb.check!(accepted).filter((e) => !failed.has(memberOf(e.field)))
}

/**
 * The verb's input, validated against its own schema, with record ids (`RecordId` members)
 * turned into UUIDs. A record id that is neither form names no record: 404.
 */
export function parseInput<I extends TSchema>(verb: Verb<I, unknown, unknown>, raw: unknown): Static<I> {
  const value = raw === undefined ? {} : raw
  const errors = validate(verb.input, value, 'input')
  if (verb.check) errors.push(...semanticErrors(verb, value, errors))
  if (errors.length > 0) throw validationFailed(errors)
  let out = value as Record<string, unknown>
  for (const name of recordIdsOf(verb.input)) {
    const given = out[name]
    if (typeof given !== 'string') continue
    const id = parseId(given)
    if (!id) throw notFound()
    // Copied only when an id changes form (a prefixed id, upper case): the caller's object stays as it was.
    if (id !== given) out = { ...out, [name]: id }
  }
  return out as Static<I>
}

const NO_EXTRAS: VerbExtras = Object.freeze({})
const NO_OPTIONS: InvokeOptions = Object.freeze({})

/** The verb itself, then what the door stores with it. */
async function runVerb<I extends TSchema, R, P>(
  verb: Verb<I, R, P>,
  ctx: Ctx,
  input: Static<I>,
  prepared: P,
  options: InvokeOptions,
): Promise<R> {
  const result = await verb.run(ctx, input, prepared, options.extras ?? NO_EXTRAS)
  await options.atCommit?.(result)
  return result
}

/** Runs the verb (its input already parsed), in its own transaction when it mutates. */
async function commit<I extends TSchema, R, P>(
  verb: Verb<I, R, P>,
  ctx: Ctx,
  input: Static<I>,
  prepared: P,
  options: InvokeOptions,
): Promise<R> {
  if (!verb.mutates) return runVerb(verb, ctx, input, prepared, options)
  const result = await inRetriedTransaction(ctx.sqlite, () => runVerb(verb, ctx, input, prepared, options))
  // Events the verb recorded go out to webhooks now rather than at the worker's next look.
  ctx.workers.wake('webhooks')
  return result
}

/** The checks every door gets before anything runs: may this actor call it, and with what input. */
function admit<I extends TSchema>(verb: Verb<I, unknown, unknown>, ctx: Ctx, raw: unknown): Static<I> {
  authorize(verb, ctx.actor)
  return parseInput(verb, raw)
}

export async function invoke<I extends TSchema, R, P>(
  verb: Verb<I, R, P>,
  ctx: Ctx,
  raw: unknown,
  options: InvokeOptions = NO_OPTIONS,
): Promise<R> {
  const input = admit(verb as Verb<I, unknown, unknown>, ctx, raw)
  const prepared = (
    verb.prepare ? await verb.prepare(ctx, input, options.extras ?? NO_EXTRAS) : undefined
  ) as P
  if (!verb.discard) return await commit(verb, ctx, input, prepared, options)
  try {
    return await commit(verb, ctx, input, prepared, options)
  } catch (err) {
    try {
      verb.discard(prepared)
    } catch {
      // What could not be undone stays; the caller hears why the verb failed, not this.
    }
    throw err
  }
}

/** `invoke` for a verb without `prepare` (the REST door's hot path). The same checks, in the same order. */
export async function invokeNow<I extends TSchema, R>(
  verb: Verb<I, R, undefined>,
  ctx: Ctx,
  raw: unknown,
  options: InvokeOptions = NO_OPTIONS,
): Promise<R> {
  if (verb.prepare) throw new Error(`verb ${verb.name} does I/O first; use invoke`)
  return await commit(verb, ctx, admit(verb as Verb<I, unknown, unknown>, ctx, raw), undefined, options)
}
