import { afterAll, describe, expect, test } from 'bun:test'
import { networkInterfaces } from 'node:os'
import { createTestApp } from '../../helpers/app'

// GET /metrics over real sockets: without a token only a direct loopback request is answered
// (a non-loopback peer, or a request a local proxy forwarded, gets 404); with
// HERALD_METRICS_TOKEN the Bearer token is required from every address.

/** An address of this machine other than loopback, for a request that is not from loopback. */
const external = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address

async function listening(env: Record<string, string> = {}) {
  const t = await createTestApp({ env })
  t.app.listen({ port: 0, hostname: '0.0.0.0' })
  const port = t.app.server!.port
  afterAll(() => t.app.stop(true))
  return {
    t,
    get: (host: string, headers: Record<string, string> = {}) =>
      fetch(`http://${host}:${port}/metrics`, { headers }),
  }
}

describe('GET /metrics without a token', async () => {
  const { t, get } = await listening()

  test('loopback: the text format, with request and process metrics', async () => {
    await t.call('GET', '/api/v1/health', { key: null })
    const res = await get('127.0.0.1')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4')
    const text = await res.text()
    expect(text).toContain('herald_http_requests_total{method="GET",route="/api/v1/health",status="200"} 1')
    for (const name of [
      'herald_http_request_duration_seconds_bucket',
      'herald_queue_depth{source="campaign"}',
      'herald_database_bytes{file="db"}',
      'herald_data_volume_bytes{kind="free"}',
      'herald_events_written_total',
      'herald_process_resident_memory_bytes',
      'herald_nodejs_eventloop_lag_seconds',
    ])
      expect(text).toContain(name)
  })

  test.skipIf(!external)('another address: 404, as if there were no route', async () => {
    expect((await get(external!)).status).toBe(404)
  })

  test('forwarded by a proxy on this host: 404', async () => {
    expect((await get('127.0.0.1', { 'x-forwarded-for': '203.0.113.9' })).status).toBe(404)
    expect((await get('127.0.0.1', { forwarded: 'for=203.0.113.9' })).status).toBe(404)
  })
})

describe('GET /metrics with HERALD_METRICS_TOKEN', async () => {
  const { get } = await listening({ HERALD_METRICS_TOKEN: 'scrape-me-please' })

  test('the token is required from loopback too', async () => {
    expect((await get('127.0.0.1')).status).toBe(401)
    expect((await get('127.0.0.1', { authorization: 'Bearer wrong' })).status).toBe(401)
    expect((await get('127.0.0.1', { authorization: 'Bearer scrape-me-please' })).status).toBe(200)
  })

  test.skipIf(!external)('with it, from any address', async () => {
    expect((await get(external!)).status).toBe(401)
    expect((await get(external!, { authorization: 'Bearer scrape-me-please' })).status).toBe(200)
  })
})
