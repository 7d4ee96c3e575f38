import { describe, expect, test } from 'bun:test'
import { createMetrics } from '../../../src/services/metrics/registry'

describe('request metrics', () => {
  test('counts by method, route and status; the histogram is cumulative per method and route', async () => {
    const m = createMetrics()
    m.observeRequest('GET', '/api/v1/clients/:id', 200, 0.0004)
    m.observeRequest('GET', '/api/v1/clients/:id', 200, 0.003)
    m.observeRequest('GET', '/api/v1/clients/:id', 404, 0.07)
    m.observeRequest('BREW', undefined, 404, 20)
    const text = await m.registry.metrics()
    const line = (prefix: string) =>
      text
        .split('\n')
        .find((l) => l.startsWith(prefix))
        ?.slice(prefix.length + 1)
    expect(line('herald_http_requests_total{method="GET",route="/api/v1/clients/:id",status="200"}')).toBe(
      '2',
    )
    expect(line('herald_http_requests_total{method="GET",route="/api/v1/clients/:id",status="404"}')).toBe(
      '1',
    )
    expect(line('herald_http_requests_total{method="other",route="unmatched",status="404"}')).toBe('1')
    const bucket = (le: string) =>
      line(`herald_http_request_duration_seconds_bucket{method="GET",route="/api/v1/clients/:id",le="${le}"}`)
    expect([bucket('0.001'), bucket('0.005'), bucket('0.05'), bucket('0.1'), bucket('+Inf')]).toEqual([
      '1',
      '2',
      '2',
      '3',
      '3',
    ])
    expect(
      Number(line('herald_http_request_duration_seconds_sum{method="GET",route="/api/v1/clients/:id"}')),
    ).toBeCloseTo(0.0734, 6)
    expect(
      line('herald_http_request_duration_seconds_bucket{method="other",route="unmatched",le="10"}'),
    ).toBe('0')
    expect(line('herald_http_request_duration_seconds_count{method="other",route="unmatched"}')).toBe('1')
  })
})
