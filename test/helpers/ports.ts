// Bun.serve cannot be asked for a port before the app exists, and Herald's public URL (cookies'
// Secure flag, links, any Origin check) must be the address its clients use: so take a free port
// on the loopback from the kernel, release it, and listen on it. Another process grabbing it in
// between would fail loudly in listen(), not silently.

export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}
