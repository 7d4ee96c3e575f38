import type { TSchema } from '@sinclair/typebox'
import type { AppContext } from '../context'
import { ServiceError } from '../errors'
import type { Verb } from '../services/verbs/define'
import { invoke } from '../services/verbs/invoke'
import { asConsole } from './offline'
import { refusalLine } from './refusal'

// The CLI's door to the verbs: the operator at the console, with a refusal printed as one line
// that names the fields (the REST door's error body has no reader here), and lists read whole.

/** A verb's refusal as a plain Error: its message and, for a 422, each field error it does not already say. */
function describe(err: unknown): never {
  if (err instanceof ServiceError) throw new Error(refusalLine(err.message, err.details))
  throw err
}

/** `invoke` as the console actor (a platform-wide admin). */
export function invokeAsConsole<I extends TSchema, R, P>(
  verb: Verb<I, R, P>,
  ctx: AppContext,
  input: unknown,
): Promise<R> {
  return invoke(verb, asConsole(ctx), input).catch(describe)
}

/** Every page of a list verb, in order: a command prints the whole list, the verb caps a page. */
export async function everyPage<I extends TSchema, T, P>(
  ctx: AppContext,
  verb: Verb<I, { data: T[]; pagination: { next_cursor: string | null } }, P>,
): Promise<T[]> {
  const all: T[] = []
  let cursor: string | undefined
  do {
    const page = await invokeAsConsole(verb, ctx, { limit: 200, cursor })
    all.push(...page.data)
    cursor = page.pagination.next_cursor ?? undefined
  } while (cursor)
  return all
}
