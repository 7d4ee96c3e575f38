import type { Database } from 'bun:sqlite'
import { and, eq, isNull, lte, min, or } from 'drizzle-orm'
import type { Db } from './client'
import {
  type ContactUpdateOf,
  type ExistingContact,
  type ImportedContact,
  type ImportWriter,
  insertValues,
} from './import-rows'
import { pgImportWriter } from './postgres/imports'
import { isPgHandle } from './postgres/in-transaction'
import { perConnection } from './prepared'
import { type ContactImportRow, contactImports } from './schema'

// The CSV import's statements: the job row's life (claim, progress, end) and the per-row
// writes of the import loop, prepared once per connection. The upserts' SQLite spellings
// (ON CONFLICT DO NOTHING, INSERT OR IGNORE) stay behind these names.

export interface ImportCounts {
  processed: number
  inserted: number
  updated: number
  skipped: number
  errors: { row: number; message: string }[]
}

// ── the job row ──────────────────────────────────────────────────────────────────────────────

/**
 * Whether a job may be taken: queued, or running under a lease that ran out (the process running
 * it died). A live lease is another process's import under way. A job left running by a version
 * without leases has none: it is taken.
 */
const claimable = (now: number) =>
  or(
    eq(contactImports.status, 'queued'),
    and(
      eq(contactImports.status, 'running'),
      or(isNull(contactImports.leasedUntil), lte(contactImports.leasedUntil, now)),
    ),
  )

/** Jobs a claim looks through for one this process may take. */
const CANDIDATES = 20

/**
 * The oldest job that may be taken (and that `mayTake` lets this process take), set running and
 * leased until `leaseUntil`. An interrupted job keeps its counts: they were stored with its last
 * committed batch, and the import goes on from that row. Undefined when none may be taken (or
 * another process took it first).
 */
export async function claimNextImport(
  db: Db,
  now: number,
  leaseUntil: number,
  mayTake: (job: ContactImportRow) => boolean = () => true,
): Promise<ContactImportRow | undefined> {
  const job = (
    await db.select().from(contactImports).where(claimable(now)).orderBy(contactImports.id).limit(CANDIDATES)
  ).find(mayTake)
  if (!job) return undefined
  // The same test again in the write: of two processes that read the job, one takes it.
  const taken = (
    await db
      .update(contactImports)
      .set({ status: 'running', leasedUntil: leaseUntil, updatedAt: now })
      .where(and(eq(contactImports.id, job.id), claimable(now)))
      .returning({ id: contactImports.id })
  )[0]!
  return taken ? job : undefined
}

/** When the earliest live lease of a running job ends (its process may have died); null when none. */
export async function nextImportLeaseEnd(db: Db): Promise<number | null> {
  const row = (
    await db
      .select({ at: min(contactImports.leasedUntil) })
      .from(contactImports)
      .where(eq(contactImports.status, 'running'))
      .limit(1)
  )[0]
  return row?.at ?? null
}

/**
 * The job's lease this process holds (its end as last written), renewed with each batch. A write
 * of the job's progress or end matches it: when it does not, the lease ran out and another
 * process took the job over, and this one must write nothing more of it.
 */
export interface ImportLease {
  ms: number
  until: number
}

/** The job was taken over by another process after this one's lease ran out. */
export class ImportTakenOver extends Error {
  constructor(id: string) {
    super(`import ${id} was taken over by another process after its lease ran out`)
  }
}

/** The job's row, if this process still holds it: any row when it is not leased. */
const heldJob = (id: string, lease: ImportLease | undefined) =>
  lease === undefined
    ? eq(contactImports.id, id)
    : and(eq(contactImports.id, id), eq(contactImports.leasedUntil, lease.until))

/**
 * Stores the counts of the batch being committed and, when leased, renews the lease to
 * `now + lease.ms`; throws ImportTakenOver (rolling the batch back) when the lease was lost.
 * The new end is returned, to be held once the batch has committed.
 */
export async function saveImportProgress(
  db: Db,
  id: string,
  p: ImportCounts,
  now: number,
  lease: ImportLease | undefined,
): Promise<number | undefined> {
  const renewed = lease === undefined ? undefined : now + lease.ms
  const written = await db
    .update(contactImports)
    .set({
      processed: p.processed,
      inserted: p.inserted,
      updated: p.updated,
      skipped: p.skipped,
      errors: p.errors,
      updatedAt: now,
      ...(renewed === undefined ? {} : { leasedUntil: renewed }),
    })
    .where(heldJob(id, lease))
    .returning({ id: contactImports.id })
  if (written.length === 0) throw new ImportTakenOver(id)
  return renewed
}

/** The job completed; false (nothing written) when another process took it over. */
export async function completeImport(
  db: Db,
  id: string,
  p: ImportCounts,
  now: number,
  lease?: ImportLease,
): Promise<boolean> {
  const written = await db
    .update(contactImports)
    .set({
      status: 'completed',
      totalRows: p.processed,
      processed: p.processed,
      inserted: p.inserted,
      updated: p.updated,
      skipped: p.skipped,
      errors: p.errors,
      updatedAt: now,
      finishedAt: now,
      leasedUntil: null,
    })
    .where(heldJob(id, lease))
    .returning({ id: contactImports.id })
  return written.length > 0
}

/** The job failed; false (nothing written) when another process took it over. */
export async function failImport(
  db: Db,
  id: string,
  failure: string,
  now: number,
  lease?: ImportLease,
): Promise<boolean> {
  const written = await db
    .update(contactImports)
    .set({ status: 'failed', failure, finishedAt: now, updatedAt: now, leasedUntil: null })
    .where(heldJob(id, lease))
    .returning({ id: contactImports.id })
  return written.length > 0
}

// ── the rows ─────────────────────────────────────────────────────────────────────────────────

export type {
  ContactUpdate,
  ContactUpdateOf,
  ExistingContact,
  ImportedContact,
  ImportWriter,
} from './import-rows'

const statements = perConnection((sqlite: Database) => ({
  insert: sqlite.prepare(
    `INSERT INTO contacts (id, client_id, email, first_name, last_name, company, phone, status, timezone, custom_fields, created_at, updated_at, client_no)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, ?12) ON CONFLICT DO NOTHING`,
  ),
  // Spelled on client_no so the unique (client_no, lower(email)) index answers it.
  existing: sqlite.prepare<ExistingContact, [number, string]>(
    'SELECT id, first_name, last_name, company, phone, status, timezone, custom_fields FROM contacts WHERE client_no = ?1 AND lower(email) = lower(?2)',
  ),
  clientNo: sqlite.prepare<{ no: number }, [string]>('SELECT no FROM clients WHERE id = ?1'),
  update: sqlite.prepare(
    'UPDATE contacts SET first_name = ?1, last_name = ?2, company = ?3, phone = ?4, status = ?5, timezone = ?6, custom_fields = ?7, updated_at = ?8 WHERE id = ?9',
  ),
  addMember: sqlite.prepare<unknown, [string, string, number]>(
    "INSERT OR IGNORE INTO list_members (list_id, contact_id, status, added_at, confirmed_at) VALUES (?1, ?2, 'confirmed', ?3, ?3)",
  ),
  // An import confirms at once: someone still waiting on a double opt-in is confirmed by it; one
  // who left the list stays gone.
  confirmMember: sqlite.prepare<unknown, [string, string, number]>(
    "UPDATE list_members SET status = 'confirmed', confirmed_at = ?3 WHERE list_id = ?1 AND contact_id = ?2 AND status = 'unconfirmed'",
  ),
  consent: sqlite.prepare<unknown, [string, string, string, number]>(
    "INSERT INTO consents (client_id, contact_id, list_id, action, source, at) VALUES (?1, ?2, ?3, 'subscribed', 'import', ?4)",
  ),
  // Same counters as bumpContactCount (contacts/counts.ts) and the list verbs.
  bumpClient: sqlite.prepare<unknown, [number, string]>(
    'UPDATE clients SET contact_count = contact_count + ?1 WHERE id = ?2',
  ),
  bumpList: sqlite.prepare<unknown, [number, number, number, string]>(
    'UPDATE lists SET member_count = member_count + ?1, unconfirmed_count = unconfirmed_count - ?2, updated_at = ?3 WHERE id = ?4',
  ),
}))

/**
 * The import loop's writes, bound to one connection's prepared statements; on PostgreSQL the
 * twin in postgres/imports.ts, run in the caller's transaction.
 */
export function importWriter(sqlite: Database): ImportWriter {
  return isPgHandle(sqlite) ? pgImportWriter(sqlite) : sqliteImportWriter(sqlite)
}

function sqliteImportWriter(sqlite: Database): ImportWriter {
  const s = statements(sqlite)
  return {
    async clientNo(clientId: string): Promise<number | null> {
      return (await s.clientNo.get(clientId))?.no ?? null
    },
    async insertContacts(cs: readonly ImportedContact[]): Promise<Set<string>> {
      const inserted = new Set<string>()
      for (const c of cs) if (s.insert.run(...insertValues(c)).changes === 1) inserted.add(c.id)
      return inserted
    },
    async existingContacts(clientNo: number, emails: readonly string[]) {
      const found = new Map<string, ExistingContact>()
      for (const email of emails) {
        const row = s.existing.get(clientNo, email)
        if (row) found.set(email, row)
      }
      return found
    },
    async updateContacts(updates: readonly ContactUpdateOf[], at: number): Promise<void> {
      for (const u of updates) s.update.run(...u.values, at, u.id)
    },
    async addMembers(clientId: string, listId: string, contactIds: readonly string[], at: number) {
      let added = 0
      let confirmed = 0
      for (const contactId of contactIds) {
        let changed = true
        if (s.addMember.run(listId, contactId, at).changes === 1) added++
        else if (s.confirmMember.run(listId, contactId, at).changes === 1) confirmed++
        else changed = false
        if (changed) s.consent.run(clientId, contactId, listId, at)
      }
      return { added, confirmed }
    },
    async bumpClientContacts(clientId: string, by: number): Promise<void> {
      s.bumpClient.run(by, clientId)
    },
    async bumpListMembers(
      listId: string,
      confirmed: number,
      fromUnconfirmed: number,
      at: number,
    ): Promise<void> {
      s.bumpList.run(confirmed, fromUnconfirmed, at, listId)
    },
    // SQLite's planner needs no statistics for these tables' queries: each has the index it uses.
    async refreshStatistics(): Promise<void> {},
  }
}
