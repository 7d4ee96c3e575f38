import { hmacBase64Url, safeEqual } from './crypto'

// Opaque, signed pagination cursors: base64url(JSON) + "." + a truncated HMAC, so a tampered
// cursor is detected instead of silently skipping or repeating rows. A cursor names the collection
// it pages (`c`), so one list's cursor handed to another is refused instead of read as a position.

export function encodeCursor(key: Uint8Array, position: string, collection?: string): string {
  const body = collection === undefined ? { p: position } : { p: position, c: collection }
  const payload = Buffer.from(JSON.stringify(body)).toString('base64url')
  return `${payload}.${hmacBase64Url(key, payload).slice(0, 16)}`
}

/**
 * Returns the position, or null when the cursor was not produced by this server, or was produced
 * for another collection than `collection`. A cursor without a collection (issued before cursors
 * named theirs) is still read, so a client paging across an upgrade is not refused.
 */
export function decodeCursor(key: Uint8Array, cursor: string, collection?: string): string | null {
  const [payload, mac, extra] = cursor.split('.')
  if (!payload || !mac || extra !== undefined) return null
  if (!safeEqual(mac, hmacBase64Url(key, payload).slice(0, 16))) return null
  try {
    const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      p?: unknown
      c?: unknown
    }
    if (parsed.c !== undefined && parsed.c !== collection) return null
    return typeof parsed.p === 'string' ? parsed.p : null
  } catch {
    return null
  }
}
