import { lookup, Resolver } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'
import { ipv6Bytes } from '../lib/ip-address'

// Webhook URLs must not reach into the instance's own network. The same check
// runs when a webhook is saved and again before every attempt: the URL's shape, its host name
// (normalised: case, trailing dot; the URL parser already turns 0x7f.1, 2130706433 and 127.1
// into 127.0.0.1), then every address the name resolves to. The attempt connects to an address
// this check approved (see attempt.ts), so a second look-up cannot answer differently.

type Range = readonly [string, number]

/** Address ranges that are not public, each with the reason given when one is refused. */
const RANGES: readonly (readonly [string, 'ipv4' | 'ipv6', readonly Range[]])[] = [
  // Cloud metadata and host services first: they sit inside the wider ranges below.
  [
    'a cloud metadata address',
    'ipv4',
    [
      ['169.254.169.254', 32], // AWS, GCP, Azure, OpenStack, …
      ['169.254.170.2', 32], // AWS ECS task metadata
      ['100.100.100.200', 32], // Alibaba
      ['168.63.129.16', 32], // Azure wire server (a public-looking address)
      ['192.0.0.192', 32], // Oracle Cloud
    ],
  ],
  ['a cloud metadata address', 'ipv6', [['fd00:ec2::254', 128]]],
  ['an unspecified address', 'ipv4', [['0.0.0.0', 8]]],
  ['a loopback address', 'ipv4', [['127.0.0.0', 8]]],
  [
    'a private address',
    'ipv4',
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
    ],
  ],
  ['a carrier-grade NAT address', 'ipv4', [['100.64.0.0', 10]]],
  ['a link-local address', 'ipv4', [['169.254.0.0', 16]]],
  ['a multicast address', 'ipv4', [['224.0.0.0', 4]]],
  [
    'a reserved address',
    'ipv4',
    [
      ['192.0.0.0', 24],
      ['192.0.2.0', 24],
      ['198.18.0.0', 15],
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
      ['240.0.0.0', 4], // and 255.255.255.255
    ],
  ],
  ['an unspecified address', 'ipv6', [['::', 128]]],
  ['a loopback address', 'ipv6', [['::1', 128]]],
  [
    'a private address',
    'ipv6',
    [
      ['fc00::', 7], // unique local
      ['fec0::', 10], // site-local (deprecated)
      ['64:ff9b:1::', 48], // local-use NAT64
    ],
  ],
  ['a link-local address', 'ipv6', [['fe80::', 10]]],
  ['a multicast address', 'ipv6', [['ff00::', 8]]],
  [
    'a reserved address',
    'ipv6',
    [
      ['::', 96], // IPv4-compatible (deprecated): ::127.0.0.1
      ['100::', 64], // discard
      ['2001::', 32], // Teredo
      ['2001:db8::', 32], // documentation
    ],
  ],
]

const LISTS = RANGES.map(([reason, family, ranges]) => {
  const list = new BlockList()
  for (const [net, prefix] of ranges) list.addSubnet(net, prefix, family)
  return { reason, family, list }
})

const dotted = (b: number[]) => b.join('.')

/**
 * Why an address may not be called ("a loopback address", …), or null when it is public.
 * IPv6 forms that carry an IPv4 address (::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16)
 * are judged by that IPv4 address. Anything that is not an IP address is refused.
 */
export function addressProblem(address: string): string | null {
  const family = isIP(address)
  if (family === 4) {
    for (const l of LISTS) if (l.family === 'ipv4' && l.list.check(address, 'ipv4')) return l.reason
    return null
  }
  const bytes = ipv6Bytes(address)
  if (family !== 6 || !bytes) return 'not an IP address'
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0)
  if (zeros(0, 10) && bytes[10] === 255 && bytes[11] === 255) return addressProblem(dotted(bytes.slice(12)))
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12))
    return addressProblem(dotted(bytes.slice(12)))
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return addressProblem(dotted(bytes.slice(2, 6)))
  // IPv4-translated (::ffff:0:a.b.c.d): not routable on the internet.
  if (zeros(0, 8) && bytes[8] === 255 && bytes[9] === 255 && zeros(10, 12)) return 'a reserved address'
  for (const l of LISTS) if (l.family === 'ipv6' && l.list.check(address, 'ipv6')) return l.reason
  return null
}

/** True for loopback, private, link-local, metadata and other non-public addresses. */
export const isPrivateAddress = (address: string): boolean => addressProblem(address) !== null

/** The URL's host as it is looked up: brackets off, lower case, no trailing dot. */
export function normaliseHost(hostname: string): string {
  return hostname
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.+$/, '')
}

/** Names of cloud metadata services, refused without a look-up. */
const METADATA_NAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
])

/** Suffixes of names that only ever mean something inside a network. */
const LOCAL_SUFFIXES = ['localhost', 'local', 'internal', 'home.arpa', 'arpa', 'lan', 'intranet']

/** Why the host (normalised) is not a public name, before any look-up, or null. */
function nameProblem(host: string): string | null {
  if (METADATA_NAMES.has(host)) return `must not be a cloud metadata host (${host})`
  if (LOCAL_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`)) || !host.includes('.'))
    return `must be a public host name (${host} is a local name)`
  return null
}

/** Why a URL may not be a webhook target, or null when it may (before any DNS look-up). */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'must be an absolute URL'
  }
  if (url.username || url.password) return 'must not contain credentials'
  // The message names what this instance takes: http too when HERALD_WEBHOOK_ALLOW_PRIVATE is on.
  if (allowPrivate)
    return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'must use https or http'
  if (url.protocol !== 'https:') return 'must use https'
  const host = normaliseHost(url.hostname)
  if (isIP(host)) {
    const why = addressProblem(host)
    return why ? `must be a public address (${host} is ${why})` : null
  }
  return nameProblem(host)
}

/** A look-up: the name's addresses (empty when it has none), or a failure to report. */
export type HostResolver = (host: string) => Promise<{ addresses: string[] } | { error: string }>

const NO_ADDRESS = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'ENONAME', 'EAI_NONAME', 'EAI_NODATA'])
const resolvers = new Map<string, HostResolver>()

/**
 * `HERALD_DNS_SERVERS` when configured (A and AAAA from those servers), else the system
 * resolver (getaddrinfo: /etc/hosts included). Time-boxed: 3 s × 2 tries per query.
 */
export function hostResolver(servers: readonly string[]): HostResolver {
  const key = servers.join(',')
  const known = resolvers.get(key)
  if (known) return known
  const code = (err: unknown) => String((err as NodeJS.ErrnoException).code ?? 'EUNKNOWN')
  let resolve: HostResolver
  if (servers.length === 0) {
    resolve = async (host) => {
      try {
        const found = await lookup(host, { all: true, verbatim: true })
        return { addresses: found.map((a) => a.address) }
      } catch (err) {
        return NO_ADDRESS.has(code(err)) ? { addresses: [] } : { error: code(err) }
      }
    }
  } else {
    const resolver = new Resolver({ timeout: 3000, tries: 2 })
    resolver.setServers([...servers])
    const query = async (family: 4 | 6, host: string): Promise<{ addresses: string[]; error?: string }> => {
      try {
        return { addresses: await (family === 4 ? resolver.resolve4(host) : resolver.resolve6(host)) }
      } catch (err) {
        return NO_ADDRESS.has(code(err)) ? { addresses: [] } : { addresses: [], error: code(err) }
      }
    }
    resolve = async (host) => {
      const [v4, v6] = await Promise.all([query(4, host), query(6, host)])
      const addresses = [...v4.addresses, ...v6.addresses]
      // One family answering is enough; a failure only counts when nothing came back.
      const error = v4.error ?? v6.error
      return addresses.length === 0 && error ? { error } : { addresses }
    }
  }
  resolvers.set(key, resolve)
  return resolve
}

/** Where an attempt may connect: the URL, and the approved address to pin (null: the URL's own). */
export interface Target {
  url: URL
  /** The normalised host name, for the Host header and TLS (SNI and the certificate check). */
  host: string
  /** Approved addresses in the order to try; empty when the URL is not pinned (an IP literal, or allow-private). */
  addresses: string[]
}

/**
 * The whole check: the URL's shape, the host name, then every address the name resolves to
 * (all must be public). A name that does not resolve is refused: it cannot be called anyway,
 * and accepting it would leave the decision to whatever it points at later.
 */
export async function checkTarget(
  raw: string,
  allowPrivate: boolean,
  resolve: HostResolver,
): Promise<{ problem: string; unresolved?: true } | { target: Target }> {
  const shape = urlProblem(raw, allowPrivate)
  if (shape) return { problem: shape }
  const url = new URL(raw)
  const host = normaliseHost(url.hostname)
  if (allowPrivate || isIP(host)) return { target: { url, host, addresses: [] } }
  const found = await publicAddresses(host, resolve)
  return 'problem' in found ? found : { target: { url, host, addresses: found.addresses } }
}

/**
 * The addresses a host name resolves to when every one is public, else why not. A name that
 * does not resolve is refused (`unresolved`): accepting it would leave the decision to whatever
 * it points at later.
 */
export async function publicAddresses(
  host: string,
  resolve: HostResolver,
): Promise<{ problem: string; unresolved?: true } | { addresses: string[] }> {
  const found = await resolve(host)
  if ('error' in found)
    return { problem: `could not be resolved: looking up ${host} failed (${found.error})`, unresolved: true }
  if (found.addresses.length === 0)
    return { problem: `must resolve: ${host} has no address`, unresolved: true }
  for (const address of found.addresses) {
    const why = addressProblem(address)
    if (why) return { problem: `must resolve to a public address (${host} resolves to ${address}, ${why})` }
  }
  return { addresses: found.addresses }
}

/** checkTarget's verdict only: the problem, or null when the target may be called. */
export async function deliveryProblem(
  raw: string,
  allowPrivate: boolean,
  resolve: HostResolver = hostResolver([]),
): Promise<string | null> {
  const r = await checkTarget(raw, allowPrivate, resolve)
  return 'problem' in r ? r.problem : null
}

/**
 * A resolver that shares look-ups for `ttlMs`: concurrent attempts to one host wait for one
 * query, and its answer serves the attempts of the next `ttlMs` (a failure for at most one
 * second, so a burst to a name that does not resolve is not a burst of queries). Only the
 * look-up is shared: checkTarget still judges every address of the answer on every attempt, and
 * the attempt is still pinned to an address so judged, so a cached answer can never let a
 * connection reach an address the check refuses. What the cache can do is keep an endpoint on
 * its previous public address for up to `ttlMs` after its DNS changed.
 */
export function cachingResolver(
  resolve: HostResolver,
  ttlMs: number,
  now: () => number = () => performance.now(),
): HostResolver {
  const FAILURE_TTL_MS = Math.min(ttlMs, 1000)
  const answers = new Map<string, { at: number; ttl: number; answer: ReturnType<HostResolver> }>()
  return (host) => {
    const t = now()
    const known = answers.get(host)
    if (known && t - known.at < known.ttl) return known.answer
    const answer = resolve(host)
    const entry = { at: t, ttl: ttlMs, answer }
    answers.set(host, entry)
    answer.then(
      (a) => {
        if ('error' in a || a.addresses.length === 0) entry.ttl = FAILURE_TTL_MS
      },
      () => answers.delete(host),
    )
    // Names come from stored webhook URLs: few, but bounded anyway.
    if (answers.size > 10_000) answers.clear()
    return answer
  }
}
