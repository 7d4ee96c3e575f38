import { and, eq } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { templates } from '../../db/schema'
import { type FieldError, ServiceError } from '../../errors'
import { parseId } from '../../lib/ids'
import { assertListsOfClient } from '../lists/members'
import { CUSTOM_FIELD_PATTERN, type FormPatch, STANDARD_FORM_FIELDS } from './inputs'

// A form's members checked against each other and the client's records; every failure is reported.

/** The fields asked, email first and always, each once; bad names go to `errors`. */
export function normalizeFields(fields: readonly string[], errors: FieldError[]): string[] {
  const seen = new Set<string>()
  fields.forEach((f, i) => {
    if (!(STANDARD_FORM_FIELDS as readonly string[]).includes(f) && !CUSTOM_FIELD_PATTERN.test(f))
      errors.push({
        field: `fields[${i}]`,
        message: `must be one of ${STANDARD_FORM_FIELDS.join(', ')} or custom.<key>`,
      })
    else if (seen.has(f)) errors.push({ field: `fields[${i}]`, message: `${f} is listed twice` })
    seen.add(f)
  })
  return ['email', ...fields.filter((f) => f !== 'email')]
}

const isHttp = (url: string) => /^https?:\/\//i.test(url)

export function checkUrls(input: Pick<FormPatch, 'success_url' | 'confirmed_url'>, errors: FieldError[]) {
  for (const field of ['success_url', 'confirmed_url'] as const) {
    const url = input[field]
    if (url && !isHttp(url)) errors.push({ field, message: 'must be an http or https URL' })
  }
}

/** The template's UUID when it is an email template of the client, else an error. */
export async function checkTemplate(
  db: Db,
  clientId: string,
  ref: string,
  errors: FieldError[],
): Promise<string | null> {
  const id = parseId(ref)
  const row = id
    ? (
        await db
          .select({ channel: templates.channel })
          .from(templates)
          .where(and(eq(templates.id, id), eq(templates.clientId, clientId)))
          .limit(1)
      )[0]
    : undefined
  if (!row) errors.push({ field: 'confirmation_template_id', message: 'no such template in this client' })
  else if (row.channel !== 'email')
    errors.push({ field: 'confirmation_template_id', message: 'must be an email template' })
  return row ? id : null
}

/** Lists of the client, as UUIDs; unknown or foreign ones go to `errors` as `list_ids[i]`. */
export async function checkLists(
  db: Db,
  clientId: string,
  refs: readonly string[],
  errors: FieldError[],
): Promise<string[]> {
  const ids = refs.map((r) => parseId(r) ?? r)
  try {
    await assertListsOfClient(db, clientId, ids, 'list_ids')
  } catch (err) {
    if (!(err instanceof ServiceError) || !Array.isArray(err.details)) throw err
    errors.push(...(err.details as FieldError[]))
  }
  return ids
}
