import { afterAll, describe, expect, test } from 'bun:test'
import { apiCommand } from '../../src/cli/api'
import { type Io, MAX_RATE_WAIT_MS, RATE_RETRIES, rateLimitWait } from '../../src/cli/api/client'
import { createTestApp } from '../helpers/app'
import { testClock } from '../helpers/journey'
import { serveApp } from '../helpers/mcp'

// `herald api … --all` waits out a 429 instead of losing the pages read so far: Retry-After
// (seconds or a date), else RateLimit-Reset, else 1 s doubling; at most RATE_RETRIES in a row,
// and no wait over MAX_RATE_WAIT_MS. A notice goes to stderr. Against the real server, the CLI's
// sleep moves the server's injected clock, so the bucket refills without the test waiting; against
// a scripted local server for the header forms and the limits.

function io(env: Record<string, string>, onSleep: (ms: number) => void = () => {}) {
  const out: string[] = []
  const err: string[] = []
  const waits: number[] = []
  const value: Io = {
    out: (s) => void out.push(s),
    err: (s) => void err.push(s),
    flush: async () => {},
    isTTY: false,
    env,
    stdin: { text: async () => '', bytes: async () => new Uint8Array() },
    sleep: async (ms) => {
      waits.push(ms)
      onSleep(ms)
    },
  }
  return { io: value, out, err, waits }
}

describe('against the real server (standard tier: burst 100, 10 a second)', async () => {
  const clock = testClock()
  const t = await createTestApp({ clock })
  const server = serveApp(t.app)
  afterAll(() => server.stop())

  test('--all over 105 one-item pages: the 101st is refused, waited out, and every item printed once', async () => {
    const ids = new Set<string>()
    const writer = await t.key({ scopes: ['contacts:write'], clientId: t.defaultClientId, tier: 'unlimited' })
    for (let i = 0; i < 105; i++) {
      const r = await t.call('POST', '/api/v1/contacts', {
        key: writer,
        body: { email: `c${i}@example.com` },
      })
      ids.add(r.body.data.id)
    }
    const key = await t.key({ scopes: ['contacts:read'], clientId: t.defaultClientId, tier: 'standard' })
    const run = io({ HERALD_URL: server.base, HERALD_API_KEY: key }, (ms) => {
      clock.t += ms
    })
    const code = await apiCommand(['list_contacts', '--all', '--jsonl', '--limit', '1'], run.io)
    expect(run.err.join('')).toBe('herald: rate limited (429) on page 101; waiting 1 s (retry 1 of 5)\n')
    expect(code).toBe(0)
    expect(run.waits).toEqual([1000])
    const printed = run.out.map((line) => JSON.parse(line).id as string)
    expect(printed).toHaveLength(105)
    expect(new Set(printed)).toEqual(ids)
  })
})

describe('against a scripted server', () => {
  /** Answers each request with the next of `answers` (the last repeats); records the queries. */
  function scripted(answers: (() => Response)[]) {
    const queries: string[] = []
    const server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (r) => {
        queries.push(new URL(r.url).search)
        return answers[Math.min(queries.length - 1, answers.length - 1)]!()
      },
    })
    return { base: `http://127.0.0.1:${server.port}`, queries, stop: () => server.stop(true) }
  }
  const page = (data: unknown[], next: string | null) => () =>
    Response.json({ data, pagination: { limit: 1, has_more: next !== null, next_cursor: next } })
  const limited = (headers: Record<string, string>) => () =>
    Response.json(
      { error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded', request_id: crypto.randomUUID() } },
      { status: 429, headers },
    )

  const cases: {
    name: string
    answers: (() => Response)[]
    code: number
    waits: number[]
    items?: number
    stderr: RegExp
  }[] = [
    {
      name: 'Retry-After in seconds, once, on page 2',
      answers: [page([{ id: 'a' }], 'c1'), limited({ 'retry-after': '3' }), page([{ id: 'b' }], null)],
      code: 0,
      waits: [3000],
      items: 2,
      stderr: /^herald: rate limited \(429\) on page 2; waiting 3 s \(retry 1 of 5\)\n$/,
    },
    {
      name: 'no Retry-After: RateLimit-Reset',
      answers: [limited({ 'ratelimit-reset': '7', 'ratelimit-remaining': '0' }), page([{ id: 'a' }], null)],
      code: 0,
      waits: [7000],
      items: 1,
      stderr: /waiting 7 s/,
    },
    {
      name: 'no header at all: 1 s doubling',
      answers: [limited({}), limited({}), limited({}), page([], null)],
      code: 0,
      waits: [1000, 2000, 4000],
      items: 0,
      stderr: /retry 3 of 5/,
    },
    {
      name: 'Retry-After 0 still waits a second',
      answers: [limited({ 'retry-after': '0' }), page([], null)],
      code: 0,
      waits: [1000],
      items: 0,
      stderr: /waiting 1 s/,
    },
    {
      name: `refused ${RATE_RETRIES + 1} times in a row: gives up with the 429 printed`,
      answers: [limited({ 'retry-after': '1' })],
      code: 1,
      waits: Array(RATE_RETRIES).fill(1000),
      stderr: /retry 5 of 5\)\nherald: RATE_LIMITED: Rate limit exceeded\n {2}retry after: 1 s\n/,
    },
    {
      name: 'a wait over the cap is not taken',
      answers: [limited({ 'retry-after': String(MAX_RATE_WAIT_MS / 1000 + 1) })],
      code: 1,
      waits: [],
      stderr: /^herald: RATE_LIMITED: Rate limit exceeded\n {2}retry after: 121 s\n/,
    },
  ]

  for (const c of cases)
    test(c.name, async () => {
      const s = scripted(c.answers)
      try {
        const run = io({ HERALD_URL: s.base, HERALD_API_KEY: 'hrld_test' })
        expect(await apiCommand(['list_contacts', '--all', '--json'], run.io)).toBe(c.code)
        expect(run.waits).toEqual(c.waits)
        expect(run.err.join('')).toMatch(c.stderr)
        if (c.items !== undefined) expect(JSON.parse(run.out.join(''))).toHaveLength(c.items)
      } finally {
        s.stop()
      }
    })

  test('the retried request is the same page (same cursor)', async () => {
    const s = scripted([
      page([{ id: 'a' }], 'c1'),
      limited({ 'retry-after': '1' }),
      page([{ id: 'b' }], null),
    ])
    try {
      const run = io({ HERALD_URL: s.base, HERALD_API_KEY: 'hrld_test' })
      expect(await apiCommand(['list_contacts', '--all'], run.io)).toBe(0)
      expect(s.queries).toEqual(['', '?cursor=c1', '?cursor=c1'])
    } finally {
      s.stop()
    }
  })

  test('without --all a 429 is printed at once (one request, no wait)', async () => {
    const s = scripted([limited({ 'retry-after': '2' })])
    try {
      const run = io({ HERALD_URL: s.base, HERALD_API_KEY: 'hrld_test' })
      expect(await apiCommand(['list_contacts'], run.io)).toBe(1)
      expect(run.waits).toEqual([])
      expect(s.queries).toHaveLength(1)
      expect(run.err.join('')).toContain('retry after: 2 s')
    } finally {
      s.stop()
    }
  })

  test('Retry-After as an HTTP date', () => {
    const now = Date.parse('2026-11-24T04:00:00Z')
    const h = new Headers({ 'retry-after': new Date(now + 4000).toUTCString() })
    expect(rateLimitWait(h, 0, now)).toBe(4000)
  })
})
