/** A large body (a CSV import, raw MIME) already written to disk, with its SHA-256 and line count. */
export interface Upload {
  file: string
  /** The request's Content-Type. */
  contentType: string
  /** Size and line count of the file kept. */
  bytes: number
  lines: number
  /** SHA-256 of the whole request body (every part of a multipart one). */
  sha256: string
  /** The multipart part the file came from; absent when the body was the file. */
  part?: string
}
