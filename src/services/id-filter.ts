import { invalidField } from '../errors'
import { type IdKind, notAnIdMessage, parseId } from '../lib/ids'

/** A list's filter by a record id (`?contact_id=`): the id, or undefined without one; not an id → 422 naming it. */
export function idFilter(field: string, kind: IdKind, value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const id = parseId(value)
  if (!id) throw invalidField(field, notAnIdMessage(kind))
  return id
}
