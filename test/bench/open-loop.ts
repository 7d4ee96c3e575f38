// Open-loop load generator: sends GET requests at a fixed rate, whatever the server does, and times
// each response from the moment the request was *scheduled*, so a server that falls behind shows up
// as latency instead of silently slowing the sender down (no coordinated omission).
//
// Usage: bun test/bench/open-loop.ts URL RATE_PER_S SECONDS ['Name: value' ...]
// Prints one JSON line (latencies in ms): see OpenLoopResult.

export interface OpenLoopResult {
  target_rps: number
  achieved_rps: number
  sent: number
  ok: number
  errors: number
  /** How far behind schedule the sender itself got, worst case: a large value means the client saturated. */
  max_send_lag_ms: number
  p50_ms: number
  p90_ms: number
  p99_ms: number
  max_ms: number
}

const DRAIN_TIMEOUT_MS = 15_000

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[rank]!
}

/**
 * Requests go over CONNECTIONS keep-alive sockets written by hand (Bun.connect): fetch() costs
 * several times more CPU per request, and at tens of thousands of requests per second the
 * client's own stalls would show up as server latency.
 */
const CONNECTIONS = 64

export async function openLoop(
  url: string,
  rate: number,
  seconds: number,
  headers: Record<string, string>,
): Promise<OpenLoopResult> {
  const target = new URL(url)
  const head =
    `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\n` +
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n'
  const requestBytes = new TextEncoder().encode(head)
  const total = Math.max(1, Math.round(rate * seconds))
  const intervalMs = 1000 / rate
  const latencies = new Float64Array(total).fill(Number.NaN)
  let ok = 0
  let errors = 0
  let settled = 0
  let lastCompletion = 0
  let maxLag = 0

  // Requests whose slot has come but that found no idle connection wait here (FIFO).
  const backlog: { i: number; scheduled: number }[] = []
  interface Conn {
    socket: Bun.Socket<undefined> | null
    current: { i: number; scheduled: number } | null
    buffer: string
  }
  const idle: Conn[] = []

  const dispatch = (conn: Conn) => {
    const job = backlog.shift()
    if (!job) {
      conn.current = null
      idle.push(conn)
      return
    }
    conn.current = job
    conn.socket!.write(requestBytes)
  }

  const complete = (conn: Conn, status: number) => {
    const job = conn.current!
    const now = performance.now()
    lastCompletion = now
    if (status === 200) {
      latencies[job.i] = now - job.scheduled
      ok++
    } else errors++
    settled++
    dispatch(conn)
  }

  const conns: Conn[] = []
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const conn: Conn = { socket: null, current: null, buffer: '' }
      conn.socket = await Bun.connect({
        hostname: target.hostname,
        port: Number(target.port || 80),
        socket: {
          data(_socket, chunk) {
            conn.buffer += chunk.toString('latin1')
            for (;;) {
              const end = conn.buffer.indexOf('\r\n\r\n')
              if (end === -1 || !conn.current) return
              const match = /content-length:\s*(\d+)/i.exec(conn.buffer.slice(0, end))
              const length = match ? Number(match[1]) : 0
              if (conn.buffer.length < end + 4 + length) return
              const status = Number(conn.buffer.slice(9, 12))
              conn.buffer = conn.buffer.slice(end + 4 + length)
              complete(conn, status)
            }
          },
          close() {
            if (conn.current) {
              errors++
              settled++
              conn.current = null
            }
          },
        },
      })
      conns.push(conn)
      idle.push(conn)
    }),
  )

  const start = performance.now() + 20
  let next = 0
  while (next < total) {
    const now = performance.now()
    // Everything whose slot has come goes out now; latency still counts from its own slot.
    while (next < total && start + next * intervalMs <= now) {
      const scheduled = start + next * intervalMs
      maxLag = Math.max(maxLag, now - scheduled)
      backlog.push({ i: next, scheduled })
      const conn = idle.pop()
      if (conn) dispatch(conn)
      next++
    }
    await Bun.sleep(0)
  }
  const drainDeadline = performance.now() + DRAIN_TIMEOUT_MS
  while (settled < total && performance.now() < drainDeadline) await Bun.sleep(5)
  errors += total - settled
  for (const c of conns) c.socket?.end()

  const ms = latencies.filter((v) => !Number.isNaN(v)).sort()
  const elapsedS = (lastCompletion - start) / 1000
  return {
    target_rps: rate,
    achieved_rps: elapsedS > 0 ? ok / elapsedS : 0,
    sent: total,
    ok,
    errors,
    max_send_lag_ms: maxLag,
    p50_ms: percentile(ms, 50),
    p90_ms: percentile(ms, 90),
    p99_ms: percentile(ms, 99),
    max_ms: ms.length ? ms[ms.length - 1]! : Number.NaN,
  }
}

if (import.meta.main) {
  const [url, rateArg, secondsArg, ...headerArgs] = Bun.argv.slice(2)
  const rate = Number(rateArg)
  const seconds = Number(secondsArg)
  if (!url || !(rate > 0) || !(seconds > 0)) {
    console.error("usage: bun test/bench/open-loop.ts URL RATE_PER_S SECONDS ['Name: value' ...]")
    process.exit(2)
  }
  const headers: Record<string, string> = {}
  for (const h of headerArgs) {
    const colon = h.indexOf(':')
    if (colon > 0) headers[h.slice(0, colon).trim()] = h.slice(colon + 1).trim()
  }
  console.log(JSON.stringify(await openLoop(url, rate, seconds, headers)))
}
