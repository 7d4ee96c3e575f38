import { afterAll, describe, expect, test } from 'bun:test'
import { healthUrl } from '../../src/cli/healthcheck'
import { cliCaptured } from '../helpers/cli'

// `herald healthcheck` against a stand-in server: the exit code is what a container runtime reads.

let status = 200
const seen: string[] = []
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(req) {
    seen.push(new URL(req.url).pathname)
    return new Response('{}', { status })
  },
})
afterAll(() => server.stop(true))

const run = async (port: number) =>
  await cliCaptured(['healthcheck', '--port', String(port), '--host', '127.0.0.1'])

describe('herald healthcheck', () => {
  test('a 200 from /healthz exits 0', async () => {
    status = 200
    const r = await run(server.port!)
    expect(r.code).toBe(0)
    expect(seen.at(-1)).toBe('/healthz')
    expect(r.stdout).toContain('answered 200')
  })

  test('a 503 exits 1 naming the status', async () => {
    status = 503
    const r = await run(server.port!)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('answered 503')
  })

  test('nothing listening exits 1', async () => {
    const idle = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
    const port = idle.port!
    idle.stop(true)
    const r = await run(port)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('did not answer')
  })

  test('arguments are refused', async () => {
    expect((await cliCaptured(['healthcheck', 'now'])).code).toBe(2)
  })

  test.each([
    ['0.0.0.0', 'http://127.0.0.1:8080/healthz'],
    ['::', 'http://[::1]:8080/healthz'],
    ['10.1.2.3', 'http://10.1.2.3:8080/healthz'],
    ['fd00::1', 'http://[fd00::1]:8080/healthz'],
  ])('a server on %s is asked at %s', (host, url) => {
    expect(healthUrl(host, 8080)).toBe(url)
  })
})
