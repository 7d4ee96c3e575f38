import { type Static, Type as t } from '@sinclair/typebox'
import { pageQueryMembers, RecordId, strict } from '../verbs/schemas'

// What the import verbs take. The CSV itself is not an input member: it arrives as the door's
// upload (VerbExtras.upload), already on disk.

export const CreateImportInput = t.Object(
  {
    client_id: t.Optional(t.String()),
    list_id: t.Optional(t.String()),
    update_existing: t.Optional(t.Boolean()),
  },
  strict,
)
export type CreateImportInput = Static<typeof CreateImportInput>

export const ImportRef = t.Object({ id: RecordId }, strict)

/** The imports of the workspace, newest first (portal-only read). */
export const ListImportsInput = t.Object({ ...pageQueryMembers, client_id: t.Optional(t.String()) }, strict)
export type ListImportsInput = Static<typeof ListImportsInput>
