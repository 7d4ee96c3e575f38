/** A local webhook receiver: records every request; the answer can be changed, and it can go down and come back. */
export interface Received {
  headers: Record<string, string>
  body: string
}

export interface Receiver {
  url: string
  port: number
  received: Received[]
  /** The answer to the next requests (default 204). */
  respond: (req: Request) => Response | Promise<Response>
  down(): Promise<void>
  up(): void
  close(): Promise<void>
}

export function startReceiver(path = '/hook'): Receiver {
  let server: ReturnType<typeof Bun.serve> | null = null
  const r: Receiver = {
    url: '',
    port: 0,
    received: [],
    respond: () => new Response(null, { status: 204 }),
    async down() {
      await server?.stop(true)
      server = null
    },
    up() {
      server = Bun.serve({
        hostname: '127.0.0.1',
        port: r.port,
        async fetch(req) {
          const body = await req.text()
          r.received.push({ headers: req.headers.toJSON(), body })
          return r.respond(req)
        },
      })
      r.port = server.port!
      r.url = `http://127.0.0.1:${r.port}${path}`
    },
    async close() {
      await r.down()
    },
  }
  r.up()
  return r
}

/** Polls until check() is true (or fails the test after timeoutMs). */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(10)
  }
}

/** Retries an async assertion until it passes (or rethrows its last failure after timeoutMs). */
export async function eventually(check: () => Promise<void>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      await check()
      return
    } catch (err) {
      if (Date.now() > deadline) throw err
      await Bun.sleep(20)
    }
  }
}
