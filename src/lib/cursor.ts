import { hmacBase64Url, safeEqual, sha256Hex } from './crypto'

// Opaque, signed pagination cursors: base64url(JSON) + "." + a truncated HMAC, so a tampered
// cursor is detected instead of silently skipping or repeating rows. A cursor names the collection
// it pages (`c`), so one list's cursor handed to another is refused instead of read as a position,
// and carries a fingerprint of the query it pages (`q`: its filters), so a cursor of one search
// or filter is refused by another instead of continuing it from a position in the wrong results.

/**
 * Members of a page request left out of its fingerprint: those that move through the results
 * rather than choose them, and `client_id`. The workspace is enforced by the query itself (a
 * cursor can never reach another client's rows), while a scoped key may name it on one page and
 * not the next, or as a UUID on one and `cli_…` on the next: the same list either way.
 */
const PAGING_MEMBERS = new Set(['limit', 'cursor', 'client_id'])

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical)
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[k]
    if (v !== undefined) out[k] = canonical(v)
  }
  return out
}

/**
 * A short fingerprint of the query a page request asks: every member but those above (an
 * absent member and an undefined one are the same query; member order does not count).
 */
export function queryFingerprint(request: object): string {
  const filters = Object.fromEntries(Object.entries(request).filter(([k]) => !PAGING_MEMBERS.has(k)))
  return sha256Hex(JSON.stringify(canonical(filters))).slice(0, 12)
}

export function encodeCursor(key: Uint8Array, position: string, collection?: string, query?: object): string {
  const body = {
    p: position,
    ...(collection === undefined ? {} : { c: collection }),
    ...(query === undefined ? {} : { q: queryFingerprint(query) }),
  }
  const payload = Buffer.from(JSON.stringify(body)).toString('base64url')
  return `${payload}.${hmacBase64Url(key, payload).slice(0, 16)}`
}

/** A cursor's position, or why it is refused: not issued here for this list, or for another query. */
export type CursorReading = { position: string } | { refused: 'foreign' | 'other_query' }

/**
 * Reads a cursor issued for `collection` and `query`. A cursor without a collection or a query
 * fingerprint (issued before cursors carried them) is still read, so a client paging across an
 * upgrade is not refused.
 */
export function readCursor(
  key: Uint8Array,
  cursor: string,
  collection?: string,
  query?: object,
): CursorReading {
  const foreign = { refused: 'foreign' } as const
  const [payload, mac, extra] = cursor.split('.')
  if (!payload || !mac || extra !== undefined) return foreign
  if (!safeEqual(mac, hmacBase64Url(key, payload).slice(0, 16))) return foreign
  let parsed: { p?: unknown; c?: unknown; q?: unknown }
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) ?? {}
  } catch {
    return foreign
  }
  if (typeof parsed.p !== 'string' || (parsed.c !== undefined && parsed.c !== collection)) return foreign
  if (parsed.q !== undefined && query !== undefined && parsed.q !== queryFingerprint(query))
    return { refused: 'other_query' }
  return { position: parsed.p }
}
