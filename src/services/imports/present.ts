import type { ContactImportRow } from '../../db/schema'
import { iso, isoOrNull } from '../../lib/time'

export function presentImport(row: ContactImportRow) {
  return {
    id: row.id,
    client_id: row.clientId,
    status: row.status,
    list_id: row.listId,
    update_existing: row.updateExisting,
    total_rows: row.totalRows,
    processed: row.processed,
    inserted: row.inserted,
    updated: row.updated,
    skipped: row.skipped,
    errors: row.errors,
    failure: row.failure,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    finished_at: isoOrNull(row.finishedAt),
  }
}
