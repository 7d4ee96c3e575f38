import { hmacBase64Url, safeEqual } from './crypto'

// Opaque, signed pagination cursors: base64url(JSON) + "." + a truncated HMAC, so a tampered
// cursor is detected instead of silently skipping or repeating rows.

export function encodeCursor(key: Uint8Array, position: string): string {
  const payload = Buffer.from(JSON.stringify({ p: position })).toString('base64url')
  return `${payload}.${hmacBase64Url(key, payload).slice(0, 16)}`
}

/** Returns the position, or null when the cursor was not produced by this server. */
export function decodeCursor(key: Uint8Array, cursor: string): string | null {
  const [payload, mac, extra] = cursor.split('.')
  if (!payload || !mac || extra !== undefined) return null
  if (!safeEqual(mac, hmacBase64Url(key, payload).slice(0, 16))) return null
  try {
    const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { p?: unknown }
    return typeof parsed.p === 'string' ? parsed.p : null
  } catch {
    return null
  }
}
