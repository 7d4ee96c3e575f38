import { BlockList, isIP } from 'node:net'

// The client's IP for the sign-in lockout, per-address limits and consent records.
// X-Forwarded-For is believed only from a trusted proxy: this machine (a reverse proxy on the
// same host, or an in-process test) and the addresses of HERALD_TRUSTED_PROXIES. From any other
// peer it is the peer's own address, so a remote client cannot choose its IP.

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/

const lists = new WeakMap<readonly string[], BlockList>()

/** The configured proxies (addresses or CIDR ranges, checked when the config loads) as one list. */
function blockListOf(trusted: readonly string[]): BlockList {
  let list = lists.get(trusted)
  if (!list) {
    list = new BlockList()
    for (const entry of trusted) {
      const [address, bits] = entry.split('/') as [string, string | undefined]
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4'
      if (bits === undefined) list.addAddress(address, family)
      else list.addSubnet(address, Number(bits), family)
    }
    lists.set(trusted, list)
  }
  return list
}

function isTrusted(address: string, trusted: readonly string[]): boolean {
  if (LOOPBACK.test(address)) return true
  if (trusted.length === 0) return false
  const family = isIP(address)
  return family !== 0 && blockListOf(trusted).check(address, family === 6 ? 'ipv6' : 'ipv4')
}

export function clientIp(request: Request, peer: string | null, trusted: readonly string[] = []): string {
  const address = peer ?? '127.0.0.1'
  if (!isTrusted(address, trusted)) return address
  const forwarded = request.headers.get('x-forwarded-for')
  if (!forwarded) return address
  // Each proxy appends the address it saw: read from the right, past the proxies we trust, to
  // the first address one of them vouches for.
  const hops = forwarded.split(',').map((h) => h.trim())
  let i = hops.length - 1
  while (i > 0 && isTrusted(hops[i]!, trusted)) i--
  const client = hops[i]
  return client && client.length <= 64 ? client : address
}
