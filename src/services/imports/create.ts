import { mkdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { and, eq } from 'drizzle-orm'
import { filesDirOf } from '../../config'
import type { Ctx } from '../../context'
import { paginate } from '../../db/paginate'
import { contactImports } from '../../db/schema'
import { listFilter, ownerForCreate, visibleTo } from '../../db/tenant'
import { invalidField, notFound } from '../../errors'
import { newId, notAnIdMessage, parseId } from '../../lib/ids'
import type { Upload } from '../../lib/upload'
import { assertListsOfClient } from '../lists/members'
import type { CreateImportInput, ListImportsInput } from './inputs'
import { presentImport } from './present'

export const IMPORT_LIMIT = 200 * 1024 * 1024

/**
 * Puts the CSV of an upload at `dest` (the spooled file is moved, never copied: of a multipart
 * body the door kept only the "file" part). Returns the file's line count (the progress
 * estimate).
 */
function csvFromUpload(upload: Upload, dest: string): number {
  if (upload.bytes === 0) throw invalidField(upload.part ?? 'body', 'the CSV file is empty')
  renameSync(upload.file, dest)
  return upload.lines
}

/** What `prepareImport` settled before anything is written: the owner, the list and the CSV on disk. */
export interface PreparedImport {
  id: string
  clientId: string
  listId: string | null
  file: string
  lines: number
}

/**
 * The I/O half of an import: checks the owner and list, then puts the upload's CSV in the
 * imports directory. Writes no rows; `queueImport` does, in the verb's transaction.
 */
export async function prepareImport(
  ctx: Ctx,
  input: CreateImportInput,
  upload: Upload | undefined,
): Promise<PreparedImport> {
  if (!upload) throw invalidField('file', 'a CSV file is required')
  const clientId = await ownerForCreate(ctx.db, ctx.actor, input.client_id)
  let listId: string | null = null
  if (input.list_id !== undefined) {
    listId = parseId(input.list_id)
    if (!listId) throw invalidField('list_id', notAnIdMessage('list'))
    await assertListsOfClient(ctx.db, clientId, [listId], 'list_id', false)
  }
  const id = newId()
  const dir = join(filesDirOf(ctx.config), 'imports')
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = join(dir, `${id}.csv`)
  try {
    return { id, clientId, listId, file, lines: csvFromUpload(upload, file) }
  } catch (err) {
    rmSync(file, { force: true })
    throw err
  }
}

/** Queues the prepared import and wakes the worker; returns at once, progress is on the job. */
export async function queueImport(ctx: Ctx, input: CreateImportInput, prepared: PreparedImport) {
  const now = ctx.clock.now()
  // Its file, when this does not commit, is removed by the verb's discard (a race lost to another
  // process runs this again first, on the same file).
  const row = (
    await ctx.db
      .insert(contactImports)
      .values({
        id: prepared.id,
        clientId: prepared.clientId,
        file: prepared.file,
        listId: prepared.listId,
        updateExisting: input.update_existing ?? false,
        // An estimate until the file has been read (quoted line breaks count here); exact when done.
        totalRows: Math.max(0, prepared.lines - 1),
        createdAt: now,
        updatedAt: now,
      })
      .returning()
  )[0]!
  ctx.workers.wake('imports')
  return presentImport(row)
}

export async function getImport(ctx: Ctx, id: string) {
  const row = (
    await ctx.db
      .select()
      .from(contactImports)
      .where(and(eq(contactImports.id, id), visibleTo(ctx.actor, contactImports.clientId)))
      .limit(1)
  )[0]
  if (!row) throw notFound('Import')
  return presentImport(row)
}

/** Imports newest first; small table (one row per upload), counted through its client index. */
export async function listImports(ctx: Ctx, input: ListImportsInput) {
  const { client_id, ...page } = input
  const where = listFilter(ctx.actor, contactImports.clientId, client_id)
  return await paginate(ctx.db, ctx.secretKey, contactImports, contactImports.id, where, page, presentImport)
}
