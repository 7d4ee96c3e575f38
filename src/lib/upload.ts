/** A large body (a CSV import, raw MIME) already written to disk, with its SHA-256 and line count. */
export interface Upload {
  file: string
  contentType: string
  bytes: number
  lines: number
  sha256: string
}
