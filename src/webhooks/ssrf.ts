import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'

// Webhook URLs must not reach into the instance's own network (DESIGN.md §7): checked when a
// webhook is saved (the URL's shape and literal addresses) and again before every attempt,
// after DNS resolution, so a name that later resolves to a private address is refused too.

const blocked = new BlockList()
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4')
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96], // NAT64 can reach private IPv4
  ['100::', 64],
  ['2001:db8::', 32],
  ['fd00:ec2::254', 128], // AWS IPv6 metadata
] as const)
  blocked.addSubnet(net, prefix, 'ipv6')

/** True for loopback, private, link-local, metadata and other non-public addresses. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return blocked.check(address, 'ipv4')
  if (family === 6) {
    // IPv4-mapped (::ffff:a.b.c.d, or ::ffff:0a00:0001 as URL parsing writes it): check the IPv4.
    const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
    if (dotted) return blocked.check(dotted[1]!, 'ipv4')
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address)
    if (hex) {
      const n = (Number.parseInt(hex[1]!, 16) << 16) | Number.parseInt(hex[2]!, 16)
      return blocked.check([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.'), 'ipv4')
    }
    return blocked.check(address, 'ipv6')
  }
  return true
}

const stripBrackets = (host: string) => host.replace(/^\[(.*)\]$/, '$1')

/** Why a URL may not be a webhook target, or null when it may (before any DNS look-up). */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'must be an absolute URL'
  }
  if (url.username || url.password) return 'must not contain credentials'
  if (allowPrivate) return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'must use https'
  if (url.protocol !== 'https:') return 'must use https'
  const host = stripBrackets(url.hostname).toLowerCase()
  if (isIP(host)) return isPrivateAddress(host) ? 'must be a public address' : null
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || !host.includes('.'))
    return 'must be a public host name'
  return null
}

/**
 * Resolves the URL's host and refuses it when any address is not public. Returns the problem,
 * or null when the target may be called.
 */
export async function deliveryProblem(raw: string, allowPrivate: boolean): Promise<string | null> {
  const shape = urlProblem(raw, allowPrivate)
  if (shape || allowPrivate) return shape
  const host = stripBrackets(new URL(raw).hostname)
  if (isIP(host)) return null
  try {
    const addresses = await lookup(host, { all: true, verbatim: true })
    if (addresses.length === 0) return `${host} does not resolve`
    const bad = addresses.find((a) => isPrivateAddress(a.address))
    return bad ? `${host} resolves to a non-public address (${bad.address})` : null
  } catch (err) {
    return `${host} does not resolve (${(err as Error).message})`
  }
}
