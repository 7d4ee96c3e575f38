import type { Database } from 'bun:sqlite'
import { open } from 'node:fs/promises'
import {
  type ContactUpdate,
  type ExistingContact,
  type ImportCounts,
  type ImportedContact,
  type ImportLease,
  importWriter,
  saveImportProgress,
} from '../../db/imports'
import { inTransaction } from '../../db/transaction'
import type { HookedDb } from '../../hooks'
import { newId } from '../../lib/ids'
import { contactsHighWater, indexContactsAfter } from '../contacts/search-index'
import { countUnreachableAfter } from '../contacts/unreachable'
import { detectDelimiter } from './columns'
import { type Cell, type FromParser, ROW_CELLS, type ToParser } from './parse-protocol'
import { contactProblem, type Parsed } from './rows'

const MAX_ERRORS = 100
/**
 * Batches the parse worker may have ready ahead of the writer (memory stays bounded). One is
 * enough: the worker parses a batch in about half the time the writer takes to store it, and
 * a second one ahead cost the server ~10-30 MB of the 300 MB a million-row import may use.
 */
const AHEAD = 1

export interface ImportJob {
  id: string
  clientId: string
  file: string
  listId: string | null
  updateExisting: boolean
  /** What earlier runs of this job committed (zero for a new job): the import goes on from there. */
  resumeFrom?: ImportCounts
  /**
   * The job's lease this process holds, renewed by each batch (its end updated once the batch
   * committed); none: the job is not leased.
   */
  lease?: ImportLease
}

export type ImportProgress = ImportCounts

/**
 * The parse worker's module. From source it sits next to this one. In the executable it is an
 * entry point of its own (scripts/build.ts), embedded under the bundle's root (src/) while this
 * module's import.meta.url is the executable's: /$bunfs/root/<name>.
 */
const PARSE_WORKER = import.meta.url.includes('/$bunfs/')
  ? new URL('./services/imports/parse-worker.ts', import.meta.url)
  : new URL('./parse-worker.ts', import.meta.url)

/**
 * The batches of checked rows of `file`, parsed on a worker thread (parse-worker.ts) while
 * this thread writes. Throws what makes the file unimportable (no header, no email column).
 */
async function* parsedBatches(file: string, delimiter: string, skip: number): AsyncGenerator<Cell[]> {
  const worker = new Worker(PARSE_WORKER)
  const inbox: FromParser[] = []
  let wake: (() => void) | null = null
  const deliver = (m: FromParser) => {
    inbox.push(m)
    wake?.()
    wake = null
  }
  worker.onmessage = (e: MessageEvent<FromParser>) => deliver(e.data)
  worker.onerror = (e: ErrorEvent) =>
    deliver({ type: 'fail', message: `the CSV parser failed: ${e.message}` })
  worker.postMessage({ type: 'start', file, delimiter, ahead: AHEAD, skip } satisfies ToParser)
  try {
    for (;;) {
      while (inbox.length === 0)
        await new Promise<void>((r) => {
          wake = r
        })
      const m = inbox.shift()!
      if (m.type === 'end') return
      if (m.type === 'fail') throw new ImportFailure(m.message)
      worker.postMessage({ type: 'more' } satisfies ToParser)
      yield m.cells
    }
  } finally {
    worker.terminate()
  }
}

/** Why a file or job cannot be imported, in words for the client (the job's `failure`). */
export class ImportFailure extends Error {}

/** A good row of a batch: the contact it would insert, its line and the status it gave (if any). */
interface ImportRow extends ImportedContact {
  line: number
  givenStatus: string | null
}

/**
 * What a row changes in the existing contact it names (update_existing): its values over the
 * contact's, custom fields merged; null when nothing differs; a problem when the merged fields
 * break the limits (as a PATCH's would).
 */
function updatedContact(r: ImportRow, was: ExistingContact): { problem?: string; next?: ContactUpdate } {
  const rowCustom = JSON.parse(r.customFields) as Record<string, string>
  const merged = { ...JSON.parse(was.custom_fields), ...rowCustom }
  const row: Parsed = {
    email: r.email,
    first_name: r.firstName ?? undefined,
    last_name: r.lastName ?? undefined,
    company: r.company ?? undefined,
    phone: r.phone ?? undefined,
    status: r.givenStatus ?? undefined,
    timezone: r.timezone ?? undefined,
    custom: rowCustom,
  }
  const problem = Object.keys(rowCustom).length > 0 ? contactProblem(row, merged) : null
  if (problem) return { problem }
  const next: ContactUpdate = [
    r.firstName ?? was.first_name,
    r.lastName ?? was.last_name,
    r.company ?? was.company,
    r.phone ?? was.phone,
    r.givenStatus ?? was.status,
    r.timezone ?? was.timezone,
    JSON.stringify(merged),
  ]
  const before = [
    was.first_name,
    was.last_name,
    was.company,
    was.phone,
    was.status,
    was.timezone,
    JSON.stringify(JSON.parse(was.custom_fields)),
  ]
  return next.some((v, i) => v !== before[i]) ? { next } : {}
}

/** The contact as an update left it. */
const asExisting = (id: string, v: ContactUpdate): ExistingContact => ({
  id,
  first_name: v[0],
  last_name: v[1],
  company: v[2],
  phone: v[3],
  status: v[4],
  timezone: v[5],
  custom_fields: v[6],
})

/**
 * Writes the spooled CSV, parsed and checked on a worker thread, in one transaction per batch
 * of IMPORT_BATCH rows (parse-protocol.ts). Bad rows are counted and
 * reported (first 100) without stopping the file. Each batch's transaction also stores the job's
 * counts, so a run a crash interrupted goes on after its last committed batch (`resumeFrom`)
 * instead of counting its own rows again as skipped. Re-running the same file changes nothing:
 * existing emails are skipped, or updated only where a value differs.
 */
export async function processImport(
  /** With the store's `sqlite` (the handle on PostgreSQL); without, db.$client is it on SQLite. */
  { db, hooks, sqlite: given }: HookedDb & { readonly sqlite?: Database },
  job: ImportJob,
  now: () => number,
  /** After each batch's commit; the next batch waits for it. */
  onBatch: (p: ImportProgress) => void | Promise<void> = () => {},
): Promise<ImportProgress> {
  const sqlite = given ?? db.$client
  const handle = await open(job.file, 'r').catch((err: NodeJS.ErrnoException) => {
    // Taken over from a process that stopped, on another machine: its upload stayed there.
    if (err.code === 'ENOENT')
      throw new ImportFailure(
        'the uploaded file is not on this server: the import was taken over from a process that stopped, on a machine whose disk this one cannot read (set HERALD_SHARED_DIR to a directory every Herald process reaches)',
      )
    throw err
  })
  const sample = Buffer.alloc(64 * 1024)
  const { bytesRead } = await handle.read(sample, 0, sample.length, 0)
  await handle.close()
  const delimiter = detectDelimiter(sample.subarray(0, bytesRead).toString('utf8'))

  const w = importWriter(sqlite)
  // Asked once: every row's insert and email lookup is keyed on it.
  const clientNo = await w.clientNo(job.clientId)
  if (clientNo === null) throw new ImportFailure('the client of this import no longer exists')
  const from = job.resumeFrom
  const p: ImportProgress = {
    processed: from?.processed ?? 0,
    inserted: from?.inserted ?? 0,
    updated: from?.updated ?? 0,
    skipped: from?.skipped ?? 0,
    errors: [...(from?.errors ?? [])],
  }

  // A batch's rows come in key order (parse-worker.ts): its errors are put back in file order.
  let batchErrors: ImportProgress['errors'] = []
  const fail = (line: number, message: string) => {
    p.skipped++
    if (p.errors.length < MAX_ERRORS) batchErrors.push({ row: line, message })
  }

  // The lease end the batch being written renews to, held once it has committed.
  let renewed: number | undefined
  const flush = async (c: Cell[]) =>
    await inTransaction(sqlite, async (): Promise<void> => {
      const t = now()
      batchErrors = []
      const highWater = await contactsHighWater(sqlite)
      // Whether anyone reacts to new contacts, asked once a batch: with none, nothing is collected.
      const created: string[] | null = (await hooks.contactCreated.wants(job.clientId)) ? [] : null
      const insertedBefore = p.inserted
      // The batch's good rows, then its writes a step at a time for the whole batch (a
      // statement per row on SQLite, per batch on PostgreSQL), with the outcome each row would
      // have had written alone, in file order.
      const rows: ImportRow[] = []
      for (let k = 0; k < c.length; k += ROW_CELLS) {
        p.processed++
        const line = c[k] as number
        const problem = c[k + 1] as string | null
        if (problem) {
          fail(line, problem)
          continue
        }
        rows.push({
          line,
          id: newId(),
          clientId: job.clientId,
          clientNo,
          email: c[k + 2] as string,
          firstName: c[k + 3] as string | null,
          lastName: c[k + 4] as string | null,
          company: c[k + 5] as string | null,
          phone: c[k + 6] as string | null,
          status: (c[k + 7] as string | null) ?? 'subscribed',
          givenStatus: c[k + 7] as string | null,
          timezone: c[k + 8] as string | null,
          customFields: c[k + 9] as string,
          at: t,
        })
      }
      const inserted = await w.insertContacts(rows)
      const existing = await w.existingContacts(
        clientNo,
        rows.filter((r) => !inserted.has(r.id)).map((r) => r.email),
      )
      // An existing contact as the rows before this one left it (two rows may name one contact).
      const current = new Map<string, ExistingContact>()
      const updates = new Map<string, ContactUpdate>()
      const members: string[] = []
      for (const r of rows) {
        let contactId: string
        if (inserted.has(r.id)) {
          p.inserted++
          contactId = r.id
          created?.push(r.id)
        } else {
          const found = existing.get(r.email)!
          contactId = found.id
          if (job.updateExisting) {
            const was = current.get(contactId) ?? found
            const update = updatedContact(r, was)
            if (update.problem) {
              fail(r.line, update.problem)
              continue
            }
            if (update.next) {
              updates.set(contactId, update.next)
              current.set(contactId, asExisting(contactId, update.next))
              p.updated++
            } else p.skipped++
          } else p.skipped++
        }
        if (job.listId) members.push(contactId)
      }
      await w.updateContacts(
        [...updates].map(([id, values]) => ({ id, values })),
        t,
      )
      if (job.listId && members.length > 0) {
        const { added, confirmed } = await w.addMembers(job.clientId, job.listId, members, t)
        if (added + confirmed > 0) await w.bumpListMembers(job.listId, added + confirmed, confirmed, t)
      }
      await indexContactsAfter(sqlite, highWater)
      await countUnreachableAfter(sqlite, job.clientId, highWater)
      await w.bumpClientContacts(job.clientId, p.inserted - insertedBefore)
      batchErrors.sort((a, b) => a.row - b.row)
      p.errors.push(...batchErrors.slice(0, MAX_ERRORS - p.errors.length))
      batchErrors = []
      if (created && created.length > 0)
        await hooks.contactCreated.trigger({ clientId: job.clientId, contactIds: created, at: t })
      renewed = await saveImportProgress(db, job.id, p, t, job.lease)
    })

  for await (const cells of parsedBatches(job.file, delimiter, p.processed)) {
    await flush(cells)
    if (job.lease && renewed !== undefined) job.lease.until = renewed
    await onBatch(p)
    // The batch's cells are garbage once written: collecting them now (~10 ms against the
    // batch's ~250 ms) keeps the server's heap from growing batches wide between collections,
    // ~70 MB of the 300 MB a million-row import may use, which pays for the larger transactions.
    Bun.gc(true)
    // Let requests in: a large import must not starve the server.
    await new Promise((r) => setImmediate(r))
  }
  return p
}
