// MCP bars (issue 13), measured against a running `herald serve`:
//  - tools/list answers within 5 ms at p95 (an admin key: every tool);
//  - a read tool call (get_client) costs at most 1.5 x the REST round trip of the same operation
//    (GET /api/v1/clients/{id}), both measured in the same run, interleaved request by request.
// Both protocol eras are measured: 2025-11-25 (v1 SDK clients; a JSON answer) and 2026-07-28 (v2
// clients; the per-request envelope). Sequential requests over one keep-alive connection each.
//
// Part of `bun run bench` (test/bench/run.ts); alone: `bun run test/bench/mcp.ts [--samples N]`
// (builds dist/herald when missing, server pinned to core 0 and this client to core 1 when
// taskset is there).

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import {
  BenchError,
  ensureBinary,
  fmt,
  type Herald,
  runBench,
  startHerald,
  stopHerald,
  unlimitedKey,
} from './lib'

export const TOOLS_LIST_P95_BAR_MS = 5
export const CALL_RATIO_BAR = 1.5

type Era = 'legacy' | 'modern'
const VERSION: Record<Era, string> = { legacy: '2025-11-25', modern: '2026-07-28' }

/** One JSON-RPC request as each SDK client sends it (the modern one with its envelope). */
function rpc(era: Era, key: string, method: string, params: Record<string, unknown>, name?: string) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSION[era],
  }
  let body = params
  if (era === 'modern') {
    headers['mcp-method'] = method
    if (name) headers['mcp-name'] = name
    body = {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': VERSION.modern,
        'io.modelcontextprotocol/clientInfo': { name: 'herald-bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    }
  }
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: body }) }
}

/** Sends one request and reads the whole answer; anything but a good answer fails the bench. */
async function timed(url: string, init: RequestInit, check: (text: string) => boolean): Promise<number> {
  const t0 = performance.now()
  const res = await fetch(url, init)
  const text = await res.text()
  const ms = performance.now() - t0
  if (res.status !== 200 || !check(text))
    throw new BenchError(`${url} answered ${res.status}: ${text.slice(0, 300)}`)
  return ms
}

const percentile = (values: number[], p: number) => {
  const s = [...values].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
}
const stats = (ms: number[]) => ({
  p10_ms: percentile(ms, 10),
  p50_ms: percentile(ms, 50),
  p95_ms: percentile(ms, 95),
  p99_ms: percentile(ms, 99),
})

export interface McpFigures {
  samples: number
  tools: number
  tools_list: Record<Era, ReturnType<typeof stats>>
  rest_get: ReturnType<typeof stats>
  tool_call: Record<Era, ReturnType<typeof stats> & { ratio: number; ratio_p10: number }>
  tools_list_pass: boolean
  ratio_pass: boolean
}

export async function measureMcp(h: Herald, samples = 1000): Promise<McpFigures> {
  const auth = { authorization: `Bearer ${h.key}` }
  const clients = (await (await fetch(`${h.base}/api/v1/clients?limit=1`, { headers: auth })).json()) as {
    data: { id: string }[]
  }
  const id = clients.data[0]?.id
  if (!id) throw new BenchError('no client to read')
  const mcpUrl = `${h.base}/mcp/v1`
  const restUrl = `${h.base}/api/v1/clients/${id}`
  const isResult = (text: string) => text.includes('"result"') && !text.includes('"isError":true')

  const list = (era: Era) => {
    const r = rpc(era, h.key, 'tools/list', {})
    return timed(mcpUrl, { method: 'POST', headers: r.headers, body: r.body }, isResult)
  }
  const call = (era: Era) => {
    const r = rpc(era, h.key, 'tools/call', { name: 'get_client', arguments: { id } }, 'get_client')
    return timed(mcpUrl, { method: 'POST', headers: r.headers, body: r.body }, isResult)
  }
  const rest = () => timed(restUrl, { headers: auth }, (text) => text.startsWith('{"data"'))

  let tools = 0
  {
    const r = rpc('legacy', h.key, 'tools/list', {})
    const res = await fetch(mcpUrl, { method: 'POST', headers: r.headers, body: r.body })
    tools = ((await res.json()) as { result: { tools: unknown[] } }).result.tools.length
  }
  // Warm-up (JIT, caches), not counted.
  for (let i = 0; i < 200; i++) {
    await rest()
    await call('legacy')
    await call('modern')
    if (i % 4 === 0) {
      await list('legacy')
      await list('modern')
    }
  }
  const ms = { rest: [] as number[], legacy: [] as number[], modern: [] as number[] }
  const lists = { legacy: [] as number[], modern: [] as number[] }
  // Interleaved, so noise on the shared machine falls on all three alike.
  for (let i = 0; i < samples; i++) {
    ms.rest.push(await rest())
    ms.legacy.push(await call('legacy'))
    ms.modern.push(await call('modern'))
  }
  for (let i = 0; i < Math.max(100, samples / 4); i++) {
    lists.legacy.push(await list('legacy'))
    lists.modern.push(await list('modern'))
  }
  const rest_get = stats(ms.rest)
  // The bar is the p50 ratio; the p10 one is the least disturbed by other load on the machine.
  const withRatio = (era: Era) => {
    const s = stats(ms[era])
    return { ...s, ratio: s.p50_ms / rest_get.p50_ms, ratio_p10: s.p10_ms / rest_get.p10_ms }
  }
  const tool_call = { legacy: withRatio('legacy'), modern: withRatio('modern') }
  const tools_list = { legacy: stats(lists.legacy), modern: stats(lists.modern) }
  return {
    samples,
    tools,
    tools_list,
    rest_get,
    tool_call,
    tools_list_pass: Math.max(tools_list.legacy.p95_ms, tools_list.modern.p95_ms) <= TOOLS_LIST_P95_BAR_MS,
    ratio_pass: Math.max(tool_call.legacy.ratio, tool_call.modern.ratio) <= CALL_RATIO_BAR,
  }
}

/** Markdown rows for the summary table. */
export function mcpRows(m: McpFigures): string[] {
  const ms = (n: number) => fmt(n, 3)
  const eras: Era[] = ['legacy', 'modern']
  return [
    ...eras.map(
      (era) =>
        `| MCP \`tools/list\` (${m.tools} tools), protocol ${VERSION[era]}, n=${Math.max(100, m.samples / 4)} | ` +
        `p50 ${ms(m.tools_list[era].p50_ms)} ms, p95 ${ms(m.tools_list[era].p95_ms)} ms ` +
        `(bar p95 <= ${TOOLS_LIST_P95_BAR_MS} ms: ${m.tools_list[era].p95_ms <= TOOLS_LIST_P95_BAR_MS ? 'met' : 'MISSED'}) |`,
    ),
    `| REST \`GET /api/v1/clients/{id}\` round trip, n=${m.samples} | p50 ${ms(m.rest_get.p50_ms)} ms, p95 ${ms(m.rest_get.p95_ms)} ms |`,
    ...eras.map(
      (era) =>
        `| MCP \`get_client\` tool call, protocol ${VERSION[era]}, n=${m.samples} | ` +
        `p50 ${ms(m.tool_call[era].p50_ms)} ms, p95 ${ms(m.tool_call[era].p95_ms)} ms; ` +
        `${fmt(m.tool_call[era].ratio, 2)} x REST at p50 (bar <= ${CALL_RATIO_BAR}: ` +
        `${m.tool_call[era].ratio <= CALL_RATIO_BAR ? 'met' : 'MISSED'}), ${fmt(m.tool_call[era].ratio_p10, 2)} x at p10 |`,
    ),
  ]
}

if (import.meta.main) {
  let work: string | null = null
  runBench(
    async () => {
      const { values } = parseArgs({
        args: Bun.argv.slice(2),
        options: { samples: { type: 'string', default: '1000' } },
      })
      const samples = Number(values.samples)
      if (!Number.isInteger(samples) || samples < 100)
        throw new BenchError('--samples must be an integer >= 100')
      await ensureBinary()
      const pin = Bun.which('taskset') !== null
      if (pin) Bun.spawnSync(['taskset', '-a', '-cp', '1', String(process.pid)], { stdout: 'ignore' })
      work = mkdtempSync(join(tmpdir(), 'herald-bench-mcp-'))
      const data = join(work, 'data')
      await stopHerald(await startHerald(data, '', {}, { bootstrap: false, cpus: pin ? '0' : undefined }))
      const key = await unlimitedKey(data)
      const h = await startHerald(data, key, {}, { bootstrap: false, cpus: pin ? '0' : undefined })
      try {
        const m = await measureMcp(h, samples)
        console.log(['', '| Measure | Result |', '| --- | --- |', ...mcpRows(m), ''].join('\n'))
        console.log(JSON.stringify(m))
        return m.tools_list_pass && m.ratio_pass
      } finally {
        await stopHerald(h)
      }
    },
    { cleanup: () => work && rmSync(work, { recursive: true, force: true }) },
  )
}
