// The client's IP for the login lockout. X-Forwarded-For is believed only when the connection
// comes from this machine (a reverse proxy on the same host, or an in-process test); from any
// other peer it is the peer's own address, so a remote client cannot choose its IP.

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/

export function clientIp(request: Request, peer: string | null): string {
  const address = peer ?? '127.0.0.1'
  if (!LOOPBACK.test(address)) return address
  const forwarded = request.headers.get('x-forwarded-for')
  if (!forwarded) return address
  // The proxy appends the address it saw last: the rightmost entry is the one it vouches for.
  const last = forwarded.split(',').at(-1)?.trim()
  return last && last.length <= 64 ? last : address
}
