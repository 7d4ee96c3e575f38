// TXT record helpers. A TXT record is one or more ≤255-octet strings that mean their
// concatenation (RFC 7208 §3.3, RFC 6376 §3.6.2.2).

/** Splits a record's text into the ≤255-character strings a zone file needs. */
export function splitTxt(value: string, size = 255): string[] {
  const parts: string[] = []
  for (let i = 0; i < value.length; i += size) parts.push(value.slice(i, i + size))
  return parts.length > 0 ? parts : ['']
}

/**
 * Joins the strings of each TXT record as `resolveTxt` returns them. Bun (seen on 1.4.5,
 * oven-sh/bun#21370) returns every string of a multi-string record as a record of its own, in
 * order; when every record has a single string, a string that does not start a tagged record
 * (`v=…`) is taken as the continuation of the one before, if that one filled a whole 255-octet
 * string or `dedicated` says the name holds nothing but this kind of record (DKIM, DMARC names).
 */
export function joinTxt(records: string[][], dedicated: boolean): string[] {
  if (records.some((r) => r.length > 1)) return records.map((r) => r.join(''))
  const out: string[] = []
  let previousChunk: string | null = null
  for (const [chunk = ''] of records) {
    const starts = /^\s*v=/i.test(chunk)
    const continues =
      !starts && out.length > 0 && (dedicated || Buffer.byteLength(previousChunk ?? '') >= 255)
    if (continues) out[out.length - 1] += chunk
    else out.push(chunk)
    previousChunk = chunk
  }
  return out
}
