import Busboy, { type BusboyFileStream } from '@fastify/busboy'
import { invalidField, ServiceError } from '../../errors'

// A multipart/form-data body read as it arrives: the one file part a door keeps goes to `write`
// chunk by chunk (a request's body is never held whole), the small text fields are collected,
// any other file part is read and dropped.

/** Text fields are form controls (a CSRF token, a list id): a few, each small. */
const FIELD_LIMITS = { fields: 100, fieldSize: 64 * 1024, fieldNameSize: 200, parts: 200 }

export const isMultipart = (contentType: string) =>
  contentType.trimStart().toLowerCase().startsWith('multipart/form-data')

const unparsable = () =>
  new ServiceError('INVALID_REQUEST', 'The multipart body could not be parsed; send one part named "file"')

export interface MultipartRead {
  /** The text fields, in the order sent. */
  fields: FormData
  /** Whether the part named `part` came (even empty). */
  found: boolean
}

/**
 * Parses `body` (the raw request chunks) as multipart/form-data. Chunks of the part named
 * `part` are handed to `write` in order, each awaited before more of the body is read, so
 * memory holds a few chunks whatever the size. A malformed body is 400 INVALID_REQUEST; an
 * error of `write` or of reading `body` is thrown as it is.
 */
export async function readMultipart(
  body: AsyncIterable<Uint8Array>,
  contentType: string,
  part: string,
  write: (chunk: Uint8Array) => Promise<void>,
): Promise<MultipartRead> {
  let parser: ReturnType<typeof Busboy>
  try {
    parser = Busboy({
      headers: { 'content-type': contentType },
      limits: FIELD_LIMITS,
      // The kept part is a file even when sent without a filename (else it would be a field,
      // read into memory).
      isPartAFile: (name, _type, filename) => name === part || filename !== undefined,
    })
  } catch {
    throw unparsable()
  }
  const fields = new FormData()
  let found = false
  let failure: unknown = null
  let fail: (err: unknown) => void = () => {}
  const failed = new Promise<never>((_, reject) => {
    fail = (err) => {
      failure ??= err
      reject(failure)
    }
  })
  failed.catch(() => {})
  const tasks: Promise<void>[] = []

  parser.on('field', (name, value, nameTruncated, valueTruncated) => {
    if (nameTruncated || valueTruncated) fail(invalidField(name, 'is longer than a form field may be'))
    else fields.append(name, value)
  })
  parser.on('file', (name: string, stream: BusboyFileStream) => {
    if (name !== part || found) {
      stream.resume()
      return
    }
    found = true
    tasks.push(
      (async () => {
        for await (const chunk of stream as AsyncIterable<Uint8Array>) await write(chunk)
      })().catch((err) => {
        fail(err)
        stream.resume()
      }),
    )
  })
  for (const limit of ['partsLimit', 'fieldsLimit'] as const)
    parser.on(limit, () => fail(new ServiceError('INVALID_REQUEST', 'The form has too many parts')))
  parser.on('error', () => fail(unparsable()))
  const finished = new Promise<void>((resolve) => parser.on('finish', resolve))

  const feed = (chunk: Uint8Array) =>
    new Promise<void>((resolve, reject) =>
      parser.write(chunk, (err) => (err ? reject(unparsable()) : resolve())),
    )
  try {
    for await (const chunk of body) {
      // The parser calls back once the kept part has taken the chunk (its back-pressure).
      await Promise.race([feed(chunk), failed])
    }
    parser.end()
    await Promise.race([finished, failed])
    await Promise.race([Promise.all(tasks), failed])
  } catch (err) {
    parser.destroy()
    throw failure ?? err
  }
  if (failure) throw failure
  return { fields, found }
}
