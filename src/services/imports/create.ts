import { mkdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { and, eq } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { contactImports } from '../../db/schema'
import { ownerForCreate, visibleTo } from '../../db/tenant'
import { invalidField, notFound, ServiceError } from '../../errors'
import { newId, parseId } from '../../lib/ids'
import type { Upload } from '../../lib/upload'
import { assertListsOfClient } from '../lists/members'
import { presentImport } from './present'

export const IMPORT_LIMIT = 200 * 1024 * 1024

const countLines = (bytes: Uint8Array) => {
  let lines = 0
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) lines++
  return lines
}

/**
 * Puts the CSV of an upload at `dest`: a text/csv body is the spooled file itself (moved, never
 * copied); a multipart body is parsed from disk and its "file" part written out. Returns the
 * file's line count (the progress estimate).
 */
async function csvFromUpload(upload: Upload, dest: string): Promise<number> {
  if (upload.contentType.toLowerCase().startsWith('multipart/form-data')) {
    let form: FormData
    try {
      // Read whole: multipart parsing needs the body in memory anyway, and Bun 1.4.5 fails to
      // parse a file-backed Response ("missing final boundary").
      const body = await Bun.file(upload.file).arrayBuffer()
      form = await new Response(body, { headers: { 'content-type': upload.contentType } }).formData()
    } catch {
      throw new ServiceError(
        'INVALID_REQUEST',
        'The multipart body could not be parsed; send one part named "file"',
      )
    }
    const part = form.get('file')
    if (!part || typeof part === 'string')
      throw invalidField('file', 'a multipart part named "file" is required')
    if (part.size === 0) throw invalidField('file', 'the CSV file is empty')
    await Bun.write(dest, part)
    return countLines(new Uint8Array(await part.arrayBuffer()))
  }
  if (upload.bytes === 0) throw invalidField('body', 'the CSV file is empty')
  renameSync(upload.file, dest)
  return upload.lines
}

export interface ImportQuery {
  client_id?: string
  list_id?: string
  update_existing?: boolean
}

/** Accepts an upload, spools it, queues the job and returns at once; progress is on the job. */
export async function createImport(ctx: Ctx, upload: Upload, query: ImportQuery) {
  const clientId = ownerForCreate(ctx.db, ctx.actor, query.client_id)
  let listId: string | null = null
  if (query.list_id !== undefined) {
    listId = parseId(query.list_id)
    if (!listId) throw invalidField('list_id', 'must be a list id')
    assertListsOfClient(ctx.db, clientId, [listId], 'list_id', false)
  }
  const id = newId()
  const dir = join(ctx.config.dataDir, 'imports')
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = join(dir, `${id}.csv`)
  let lines: number
  try {
    lines = await csvFromUpload(upload, file)
  } catch (err) {
    rmSync(file, { force: true })
    throw err
  }
  const now = ctx.clock.now()
  const row = ctx.db
    .insert(contactImports)
    .values({
      id,
      clientId,
      file,
      listId,
      updateExisting: query.update_existing ?? false,
      // An estimate until the file has been read (quoted line breaks count here); exact when done.
      totalRows: Math.max(0, lines - 1),
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get()
  ctx.workers.wake('imports')
  return presentImport(row)
}

export function getImport(ctx: Ctx, id: string) {
  const row = ctx.db
    .select()
    .from(contactImports)
    .where(and(eq(contactImports.id, id), visibleTo(ctx.actor, contactImports.clientId)))
    .get()
  if (!row) throw notFound('Import')
  return presentImport(row)
}
