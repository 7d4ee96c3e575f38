import { createHash } from 'node:crypto'
import { createWriteStream, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { ServiceError } from '../../errors'
import { newId } from '../../lib/ids'

import type { Upload } from '../../lib/upload'

export type { Upload }

/**
 * Spools a large body (CSV imports) to `dir` without holding it in memory, hashing it on the way
 * so Idempotency-Key compares bodies as it does for JSON. The caller owns the file (rename it to
 * keep it); on any error here it is removed.
 */
export async function spoolUpload(request: Request, limit: number, dir: string): Promise<Upload> {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = join(dir, `${newId()}.upload`)
  const out = createWriteStream(file, { mode: 0o600 })
  const hash = createHash('sha256')
  let bytes = 0
  let lines = 0
  try {
    if (request.body)
      for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.byteLength
        if (bytes > limit)
          throw new ServiceError('PAYLOAD_TOO_LARGE', `The body is larger than ${limit} bytes`)
        hash.update(chunk)
        for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++
        if (!out.write(chunk)) await new Promise((r) => out.once('drain', r))
      }
    await new Promise((r) => out.end(r))
  } catch (err) {
    out.destroy()
    rmSync(file, { force: true })
    throw err
  }
  return {
    file,
    contentType: request.headers.get('content-type') ?? '',
    bytes,
    lines,
    sha256: hash.digest('hex'),
  }
}
