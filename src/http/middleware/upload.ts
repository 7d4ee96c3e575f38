import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { join } from 'node:path'
import { type Config, filesDirOf } from '../../config'
import { invalidField, ServiceError, storageFullError } from '../../errors'
import { newId } from '../../lib/ids'

import type { Upload } from '../../lib/upload'
import { isMultipart, readMultipart } from './multipart'

export type { Upload }

const SPOOL_SUFFIX = '.upload'

/**
 * Where uploads are spooled while their request runs: `uploads` beside the imports they become
 * (a spool is moved, not copied, into one), in the shared directory or the data directory.
 */
export const uploadsDir = (config: Pick<Config, 'dataDir' | 'sharedDir'>) =>
  join(filesDirOf(config), 'uploads')

/** What a door takes as a file: its size limit and, for multipart bodies, the part that holds it. */
export interface UploadAccept {
  limit: number
  /** The multipart/form-data part kept as the file; without it a body is kept whole. */
  part?: string
}

/**
 * A new file written chunk by chunk with each write awaited: a write that fails (a full volume)
 * is an error thrown to the request, never an 'error' event nobody listens to.
 */
class SpoolFile {
  bytes = 0
  lines = 0
  private constructor(
    readonly file: string,
    private readonly handle: FileHandle,
  ) {}

  static async create(file: string): Promise<SpoolFile> {
    return new SpoolFile(file, await open(file, 'wx', 0o600))
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.bytes += chunk.byteLength
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) this.lines++
    let done = 0
    while (done < chunk.byteLength) done += (await this.handle.write(chunk, done)).bytesWritten
  }

  close(): Promise<void> {
    return this.handle.close()
  }

  async discard(): Promise<void> {
    await this.handle.close().catch(() => {})
    rmSync(this.file, { force: true })
  }
}

/** The body's chunks, hashed on the way and cut (413) past `limit` bytes. */
async function* limited(request: Request, limit: number, hash: ReturnType<typeof createHash>) {
  if (!request.body) return
  let bytes = 0
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength
    if (bytes > limit) throw new ServiceError('PAYLOAD_TOO_LARGE', `The body is larger than ${limit} bytes`)
    hash.update(chunk)
    yield chunk
  }
}

/** A failed write of an upload, said as what it is when the volume is full. */
function uploadError(err: unknown): unknown {
  if (err instanceof ServiceError) return err
  return storageFullError(err)
    ? new ServiceError(
        'INSUFFICIENT_STORAGE',
        'The upload could not be stored: the data volume is full. Free space on it and retry.',
      )
    : err
}

async function spool(
  request: Request,
  accept: UploadAccept,
  dir: string,
): Promise<{ upload: Upload; fields: FormData | null; found: boolean }> {
  const contentType = request.headers.get('content-type') ?? ''
  const hash = createHash('sha256')
  let out: SpoolFile | undefined
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const file = await SpoolFile.create(join(dir, `${newId()}${SPOOL_SUFFIX}`))
    out = file
    const body = limited(request, accept.limit, hash)
    let fields: FormData | null = null
    let found = true
    if (accept.part && isMultipart(contentType)) {
      const read = await readMultipart(body, contentType, accept.part, (chunk) => file.write(chunk))
      fields = read.fields
      found = read.found
    } else for await (const chunk of body) await file.write(chunk)
    await file.close()
    const upload: Upload = {
      file: file.file,
      contentType,
      bytes: file.bytes,
      lines: file.lines,
      sha256: hash.digest('hex'),
    }
    if (fields) upload.part = accept.part
    return { upload, fields, found }
  } catch (err) {
    await out?.discard()
    throw uploadError(err)
  }
}

/**
 * Spools a large body (CSV imports, raw MIME) to `dir` without holding it in memory, hashing the
 * whole body on the way so Idempotency-Key compares bodies as it does for JSON. A multipart body
 * keeps only its `accept.part` (422 when there is none). The caller owns the file (rename it to
 * keep it); on any error here it is removed, and a full volume is 507 INSUFFICIENT_STORAGE.
 */
export async function spoolUpload(request: Request, accept: UploadAccept, dir: string): Promise<Upload> {
  const { upload, found } = await spool(request, accept, dir)
  if (!found) {
    rmSync(upload.file, { force: true })
    const part = accept.part ?? 'file'
    throw invalidField(part, `a multipart part named "${part}" is required`)
  }
  return upload
}

/**
 * A multipart form with one file input (the portal's import form): its text fields, and the
 * file part spooled as `spoolUpload` does; no upload when the part is missing or empty.
 */
export async function spoolForm(
  request: Request,
  accept: Required<UploadAccept>,
  dir: string,
): Promise<{ fields: FormData; upload?: Upload }> {
  const { upload, fields, found } = await spool(request, accept, dir)
  if (found && upload.bytes > 0) return { fields: fields ?? new FormData(), upload }
  rmSync(upload.file, { force: true })
  return { fields: fields ?? new FormData() }
}

/**
 * At start: the spool files a stopped process left (killed mid-upload). A spool lives only as
 * long as its request, so every one found before the server serves is an orphan; in a directory
 * other processes spool to as well, only those older than `olderThanMs`.
 */
export function removeStaleSpools(dir: string, { olderThanMs = 0 }: { olderThanMs?: number } = {}): number {
  let removed = 0
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return 0
  }
  const before = Date.now() - olderThanMs
  for (const name of names)
    if (name.endsWith(SPOOL_SUFFIX)) {
      const file = join(dir, name)
      try {
        if (olderThanMs > 0 && statSync(file).mtimeMs > before) continue
      } catch {
        continue // gone meanwhile
      }
      rmSync(file, { force: true })
      removed++
    }
  return removed
}
