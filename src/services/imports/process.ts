import type { Database } from 'bun:sqlite'
import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import { parse } from 'csv-parse'
import { type ContactUpdate, type ImportCounts, importWriter } from '../../db/imports'
import { newId } from '../../lib/ids'
import { validate } from '../../lib/validate'
import { CreateContactInput } from '../contacts/inputs'
import { contactFieldErrors, isEmail, isTimeZone, normalizePhone } from '../contacts/normalize'
import { contactsHighWater, indexContactsAfter } from '../contacts/search-index'
import { type ColumnTarget, type ContactColumn, detectDelimiter, mapHeader } from './columns'

const BATCH = 5000
const MAX_ERRORS = 100
const INPUT_STATUSES = new Set(['subscribed', 'unsubscribed', 'blocked'])

export interface ImportJob {
  id: string
  clientId: string
  file: string
  listId: string | null
  updateExisting: boolean
}

export type ImportProgress = ImportCounts

type Parsed = Partial<Record<ContactColumn, string>> & { custom: Record<string, string> }

function readRow(record: string[], columns: ColumnTarget[]): Parsed {
  const out: Parsed = { custom: {} }
  for (let i = 0; i < columns.length; i++) {
    const value = record[i]
    if (value === undefined || value === '') continue
    const c = columns[i]!
    if (c.kind === 'field') out[c.field] = value
    else if (c.kind === 'custom') out.custom[c.key] = value
  }
  return out
}

/** Why a row cannot be imported, or null. Same rules as the API (normalize.ts). */
function rowProblem(row: Parsed): string | null {
  if (!row.email) return 'email is missing'
  if (!isEmail(row.email)) return `email "${row.email.slice(0, 80)}" is not a valid address`
  if (row.phone !== undefined) {
    const phone = normalizePhone(row.phone)
    if (phone === null)
      return `phone "${row.phone.slice(0, 40)}" is not a phone number (use +<country code>…)`
    row.phone = phone
  }
  if (row.timezone !== undefined && !isTimeZone(row.timezone))
    return `timezone "${row.timezone.slice(0, 40)}" is not an IANA time zone`
  if (row.status !== undefined) {
    row.status = row.status.toLowerCase()
    if (!INPUT_STATUSES.has(row.status))
      return `status "${row.status.slice(0, 20)}" must be subscribed, unsubscribed or blocked`
  }
  // Every other limit of the JSON API (DESIGN.md §6): the same schema and member checks.
  return contactProblem(row, row.custom)
}

/** What the API would refuse in a contact as imported (lengths, control characters, custom fields), or null. */
function contactProblem(row: Parsed, custom: Record<string, unknown>): string | null {
  const contact = {
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    company: row.company,
    phone: row.phone,
    timezone: row.timezone,
    status: row.status,
    custom_fields: custom,
  }
  const errors = [...validate(CreateContactInput, contact, 'row'), ...contactFieldErrors(contact)]
  if (errors.length === 0) return null
  const first = errors.slice(0, 3).map((e) => `${e.field}: ${e.message}`)
  return errors.length > 3 ? `${first.join('; ')}; and ${errors.length - 3} more` : first.join('; ')
}

/**
 * Streams the spooled CSV and writes it in transactions of BATCH rows. Bad rows are counted and
 * reported (first 100) without stopping the file. Re-running the same file changes nothing:
 * existing emails are skipped, or updated only where a value differs.
 */
export async function processImport(
  sqlite: Database,
  job: ImportJob,
  now: () => number,
  onBatch: (p: ImportProgress) => void,
): Promise<ImportProgress> {
  const handle = await open(job.file, 'r')
  const sample = Buffer.alloc(64 * 1024)
  const { bytesRead } = await handle.read(sample, 0, sample.length, 0)
  await handle.close()
  const delimiter = detectDelimiter(sample.subarray(0, bytesRead).toString('utf8'))

  const parser = createReadStream(job.file).pipe(
    parse({
      bom: true,
      delimiter,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      trim: true,
    }),
  )
  const w = importWriter(sqlite)
  const p: ImportProgress = { processed: 0, inserted: 0, updated: 0, skipped: 0, errors: [] }
  let columns: ColumnTarget[] | null = null
  let recordNo = 0
  let batch: { row: Parsed; line: number }[] = []

  const fail = (line: number, message: string) => {
    p.skipped++
    if (p.errors.length < MAX_ERRORS) p.errors.push({ row: line, message })
  }

  const flush = sqlite.transaction((rows: { row: Parsed; line: number }[]) => {
    const t = now()
    const highWater = contactsHighWater(sqlite)
    const insertedBefore = p.inserted
    let added = 0
    for (const { row, line } of rows) {
      p.processed++
      const problem = rowProblem(row)
      if (problem) {
        fail(line, problem)
        continue
      }
      const custom = JSON.stringify(row.custom)
      const id = newId()
      const inserted = w.insertContact({
        id,
        clientId: job.clientId,
        email: row.email!,
        firstName: row.first_name ?? null,
        lastName: row.last_name ?? null,
        company: row.company ?? null,
        phone: row.phone ?? null,
        status: row.status ?? 'subscribed',
        timezone: row.timezone ?? null,
        customFields: custom,
        at: t,
      })
      let contactId: string
      if (inserted) {
        p.inserted++
        contactId = id
      } else {
        const current = w.existingContact(job.clientId, row.email!)!
        contactId = current.id
        if (job.updateExisting) {
          const merged = { ...JSON.parse(current.custom_fields), ...row.custom }
          // The merged fields obey the limits too (as a PATCH's do).
          const problem = Object.keys(row.custom).length > 0 ? contactProblem(row, merged) : null
          if (problem) {
            fail(line, problem)
            continue
          }
          const next: ContactUpdate = [
            row.first_name ?? current.first_name,
            row.last_name ?? current.last_name,
            row.company ?? current.company,
            row.phone ?? current.phone,
            row.status ?? current.status,
            row.timezone ?? current.timezone,
            JSON.stringify(merged),
          ]
          const before = [
            current.first_name,
            current.last_name,
            current.company,
            current.phone,
            current.status,
            current.timezone,
            JSON.stringify(JSON.parse(current.custom_fields)),
          ]
          if (next.some((v, i) => v !== before[i])) {
            w.updateContact(contactId, next, t)
            p.updated++
          } else p.skipped++
        } else p.skipped++
      }
      if (job.listId && w.addMember(job.listId, contactId, t)) added++
    }
    if (job.listId && added > 0) w.bumpListMembers(job.listId, added, t)
    indexContactsAfter(sqlite, highWater)
    w.bumpClientContacts(job.clientId, p.inserted - insertedBefore)
  })

  for await (const record of parser as AsyncIterable<string[]>) {
    recordNo++
    if (!columns) {
      columns = mapHeader(record)
      if (!columns.some((c) => c.kind === 'field' && c.field === 'email'))
        throw new Error('the header row has no email column (expected a column named email)')
      continue
    }
    batch.push({ row: readRow(record, columns), line: recordNo })
    if (batch.length >= BATCH) {
      flush.immediate(batch)
      batch = []
      onBatch(p)
      // Let requests in: a large import must not starve the server.
      await new Promise((r) => setImmediate(r))
    }
  }
  if (!columns) throw new Error('the file has no header row')
  if (batch.length) flush.immediate(batch)
  return p
}
