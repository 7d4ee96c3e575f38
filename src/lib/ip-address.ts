import { isIP } from 'node:net'

/** The 16 bytes of an IPv6 address (a trailing dotted quad included), or null. */
export function ipv6Bytes(address: string): number[] | null {
  if (isIP(address) !== 6) return null
  let text = address.toLowerCase()
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined]
  const part = (s: string | undefined) => (s ? s.split(':').map((h) => Number.parseInt(h, 16)) : [])
  const left = part(head)
  const right = part(tail)
  const words = [...left, ...Array(8 - left.length - right.length).fill(0), ...right]
  return words.flatMap((w) => [w >> 8, w & 255])
}

/**
 * The key a per-address limit counts a client under. One IPv6 host is usually given a whole /64,
 * so its addresses count as one (`2001:db8:1:2::/64`); an IPv4-mapped IPv6 address counts as its
 * IPv4 address. Anything else (IPv4, or not an address at all) is its own key.
 */
export function addressGroup(address: string): string {
  const bytes = ipv6Bytes(address.replace(/%.*$/, ''))
  if (!bytes) return address
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 255 && bytes[11] === 255)
    return bytes.slice(12).join('.')
  const words = [0, 2, 4, 6].map((i) => ((bytes[i]! << 8) | bytes[i + 1]!).toString(16))
  return `${words.join(':')}::/64`
}
