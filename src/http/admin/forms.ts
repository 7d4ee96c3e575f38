import type { TSchema } from '@sinclair/typebox'
import { ServiceError } from '../../errors'
import type { Verb } from '../../services/verbs/define'
import { type InvokeOptions, invoke } from '../../services/verbs/invoke'
import type { PortalRequest, PortalResult } from './types'

// Forms: read submitted values, call the verb through invoke (the same rules as REST), and turn
// a refusal the user can fix into the same form again with messages next to the fields.

/**
 * Messages by top-level input member, the one a form has a field for; `_form` for a refusal of
 * the whole form (409), `_summary` for the line above a form with field messages (422).
 */
export type FieldErrors = Record<string, string>

/**
 * A 422's details by top-level member. The path below the member stays in its message
 * (`settings.sending_window.start` → settings: "sending_window.start: must be a time of day…"),
 * since one field (or fieldset) shows a member whose error may be deep inside it; several errors
 * of one member are joined.
 */
export function fieldErrorsOf(err: ServiceError): FieldErrors {
  const out: FieldErrors = {}
  if (err.code === 'VALIDATION_FAILED' && Array.isArray(err.details)) {
    for (const d of err.details as { field: string; message: string }[]) {
      const member = d.field.split(/[.[]/, 1)[0] ?? ''
      const below = d.field.slice(member.length).replace(/^\./, '')
      const message = below ? `${below}: ${d.message}` : d.message
      const key = member || '_form'
      if (out[key] === undefined) out[key] = message
      else if (!out[key].split('; ').includes(message)) out[key] = `${out[key]}; ${message}`
    }
    out._summary = 'Some fields need attention; see the messages next to them.'
  } else out._form = err.message
  return out
}

/** A single-line text field; empty → undefined so the verb's own default applies. */
export function text(req: PortalRequest, name: string): string | undefined {
  const v = req.form?.get(name)
  return typeof v === 'string' && v !== '' ? v : undefined
}

/** Every value of a repeated field (checkboxes, multi-selects). */
export function list(req: PortalRequest, name: string): string[] {
  return (req.form?.getAll(name) ?? []).filter((v): v is string => typeof v === 'string' && v !== '')
}

/**
 * Checkboxes for `names`, ticked where `given` (one value or several, as values() and list()
 * read them) names them: a refused form shows the choice that was sent.
 */
export function checkboxes(
  names: readonly string[],
  given: string | readonly string[] | undefined,
): { name: string; checked: boolean }[] {
  const chosen = new Set(typeof given === 'string' ? [given] : (given ?? []))
  return names.map((name) => ({ name, checked: chosen.has(name) }))
}

/** The submitted values as plain strings, to refill a form after a refusal. */
export function values(req: PortalRequest): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  if (!req.form) return out
  for (const name of new Set(req.form.keys())) {
    if (name === '_csrf') continue
    const all = list(req, name)
    out[name] = all.length > 1 ? all : (all[0] ?? '')
  }
  return out
}

const STATUS: Partial<Record<string, number>> = { VALIDATION_FAILED: 422, CONFLICT: 409, INVALID_STATE: 409 }

/**
 * The status a form answers with when a verb refuses what was submitted (422 invalid, 409 in
 * conflict or in the wrong state), or undefined for errors the portal's error pages handle.
 */
export function refusalStatus(err: unknown): number | undefined {
  return err instanceof ServiceError ? STATUS[err.code] : undefined
}

/**
 * Calls `verb` as the signed-in user in the chosen workspace. On success `done` decides the
 * answer (usually a redirect with a flash); on 422/409 `retry` re-renders the form with the
 * messages (the returned page gets the matching status). 403/404 and the rest propagate to
 * the portal's error pages.
 */
export async function submit<I extends TSchema, R, P>(
  req: PortalRequest,
  verb: Verb<I, R, P>,
  input: unknown,
  handlers: {
    done(result: R): PortalResult | Promise<PortalResult>
    retry(errors: FieldErrors): PortalResult | Promise<PortalResult>
  },
  /** What the door hands the verb besides its input (an upload). */
  options?: InvokeOptions,
): Promise<PortalResult> {
  let result: R
  try {
    result = await invoke(verb, req.ctx, input, options)
  } catch (err) {
    const status = refusalStatus(err)
    if (!status) throw err
    const answer = await handlers.retry(fieldErrorsOf(err as ServiceError))
    return 'kind' in answer && answer.kind === 'page' ? { ...answer, status } : answer
  }
  return handlers.done(result)
}
