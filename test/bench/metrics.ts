// /metrics bar, `bun run test/bench/metrics.ts [--contacts N] [--campaigns M]` (defaults
// 1,000,000 and 100), on dist/herald with the capture provider: N CRM-style contacts imported, M
// campaigns of 1,000 recipients each sent (M × 1,000 messages, events and rollups), then
// Prometheus-style scrapes of /metrics from loopback, one after another. Bar: scrape p95 ≤ 20 ms.
// Also printed: what a scrape every 5 s costs in CPU (the scrape's server time over 5 s).
// Prints a Markdown table and one JSON line; exit code 1 when the bar is missed.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { importCrmAudience } from './crm-audience'
import { api, BenchError, ensureBinary, fmt, progress, runBench, startHerald, stopHerald } from './lib'

const KEY = `hrld_${'Bench0Metrics1Key2'.repeat(2)}`
const BAR_P95_MS = 20
const SCRAPES = 300
const EACH = 1000

const { values } = parseArgs({
  options: {
    contacts: { type: 'string', default: '1000000' },
    campaigns: { type: 'string', default: '100' },
  },
})
const N = Number(values.contacts)
const M = Number(values.campaigns)
if (!Number.isInteger(N) || N < EACH) throw new BenchError(`--contacts must be a whole number >= ${EACH}`)
if (!Number.isInteger(M) || M < 1) throw new BenchError('--campaigns must be a whole number >= 1')

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0
}

async function main(): Promise<boolean> {
  await ensureBinary()
  const dir = mkdtempSync(join(tmpdir(), 'herald-bench-metrics-'))
  try {
    const h = await startHerald(join(dir, 'data'), KEY)
    const clientId = (await api<{ data: { id: string }[] }>(h, 'GET', '/api/v1/clients')).body.data[0]!.id
    const q = `?client_id=${clientId}`
    const everyone = (await api(h, 'POST', `/api/v1/lists${q}`, { name: 'Everyone' })).body.data
    progress(`importing ${fmt(N)} contacts`)
    await importCrmAudience(h, clientId, everyone.id as string, N)
    // The campaigns go to the first 1,000 contacts (a list of them), so M campaigns leave M × 1,000
    // messages with their events and rollups behind.
    const recent = (await api(h, 'POST', `/api/v1/lists${q}`, { name: 'Recent' })).body.data
    // The same first rows again: the contacts exist, the import puts them on the list.
    await importCrmAudience(h, clientId, recent.id as string, EACH)
    progress(`sending ${M} campaigns of ${fmt(EACH)} (capture)`)
    const ids: string[] = []
    for (let i = 0; i < M; i++) {
      const c = (
        await api<{ data: { id: string } }>(h, 'POST', `/api/v1/campaigns${q}`, {
          name: `Weekly ${i}`,
          list_id: recent.id,
          subject: 'News for {{ contact.first_name }}',
          body_html:
            '<p>Hello {{ contact.first_name }}, <a href="https://shop.example/new">what is new</a></p>',
        })
      ).body.data
      await api(h, 'POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
      ids.push(c.id)
    }
    for (const id of ids)
      for (;;) {
        const s = (await api<{ data: { status: string } }>(h, 'GET', `/api/v1/campaigns/${id}`)).body.data
          .status
        if (s === 'sent') break
        if (s === 'failed' || s === 'cancelled') throw new BenchError(`campaign ${id} ended ${s}`)
        await Bun.sleep(100)
      }

    progress(`${SCRAPES} scrapes of /metrics`)
    const times: number[] = []
    let bytes = 0
    for (let i = 0; i < SCRAPES; i++) {
      const t0 = performance.now()
      const res = await fetch(`${h.base}/metrics`)
      const text = await res.text()
      times.push(performance.now() - t0)
      if (res.status !== 200) throw new BenchError(`/metrics answered ${res.status}`)
      if (!text.includes('herald_http_requests_total'))
        throw new BenchError('/metrics lacks the request counter')
      bytes = text.length
    }
    await stopHerald(h)
    const p50 = percentile(times, 50)
    const p95 = percentile(times, 95)
    const cpuShare = (p50 / 5000) * 100
    const rows = [
      [
        `/metrics scrape p95 (${fmt(N)} contacts, ${M} campaigns, ${fmt(M * EACH)} messages)`,
        `${fmt(p95, 2)} ms (p50 ${fmt(p50, 2)})`,
        `≤ ${BAR_P95_MS} ms`,
        p95 <= BAR_P95_MS,
      ],
      ['a scrape every 5 s, share of one core', `${fmt(cpuShare, 3)} %`, '< 1 %', cpuShare < 1],
      ['answer size', `${fmt(bytes / 1024, 1)} KB`, '-', true],
    ] as const
    console.log(`\n/metrics on ${fmt(N)} contacts and ${M} sent campaigns\n`)
    console.log('| measure | result | bar | met |\n|---|---|---|---|')
    for (const [m, r, b, ok] of rows) console.log(`| ${m} | ${r} | ${b} | ${ok ? 'yes' : '**no**'} |`)
    console.log(
      JSON.stringify({ contacts: N, campaigns: M, p50_ms: p50, p95_ms: p95, bytes, cpu_share_pct: cpuShare }),
    )
    return rows.every((r) => r[3])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

runBench(main)
