import type { Database } from 'bun:sqlite'

// clients.unreachable_count (migration 0030): contacts bounced hard, complained or whose address
// is suppressed, each once — the deliverability score's list_hygiene. New contacts are counted
// here, in bulk, inside the transaction that inserted them, as they enter the search index (a
// per-row INSERT trigger doubled the CPU of an insert); updates, deletes and every write to
// suppressions are counted by the migration's triggers.

const statements = new WeakMap<Database, ReturnType<Database['prepare']>>()

/** Adds the contacts inserted after `highWater` that count as unreachable to their clients' counters. */
export function countUnreachableAfter(sqlite: Database, highWater: number): void {
  let bump = statements.get(sqlite)
  if (!bump) {
    bump = sqlite.prepare(
      `UPDATE clients SET unreachable_count = unreachable_count + (
         SELECT count(*) FROM contacts WHERE seq > ?1 AND client_id = clients.id
           AND (status IN ('bounced', 'complained')
             OR EXISTS (SELECT 1 FROM suppressions WHERE suppressions.client_id = contacts.client_id
               AND suppressions.email = lower(contacts.email))))
       WHERE id IN (SELECT client_id FROM contacts WHERE seq > ?1)`,
    )
    statements.set(sqlite, bump)
  }
  bump.run(highWater)
}
