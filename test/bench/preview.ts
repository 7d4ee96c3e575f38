// Preview latency, `bun run test/bench/preview.ts [--requests N]`: a normal template (a
// subject, a small loop over the contact's data) previewed through POST
// /api/v1/templates/{id}/preview in dist/herald, one request after another; prints p50 and p95.
// Previews render on render threads within their time budget: this is what that hop costs.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { api, BenchError, ensureBinary, fmt, runBench, startHerald, stopHerald } from './lib'

const KEY = `hrld_${'Bench0Preview1Key2'.repeat(2)}`
const { values } = parseArgs({ options: { requests: { type: 'string', default: '500' } } })
const N = Number(values.requests)
if (!Number.isInteger(N) || N < 10) throw new BenchError('--requests must be a whole number >= 10')

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

async function main(): Promise<boolean> {
  await ensureBinary()
  const dir = mkdtempSync(join(tmpdir(), 'herald-bench-preview-'))
  try {
    const h = await startHerald(join(dir, 'data'), KEY)
    try {
      const clientId = (await api<{ data: { id: string }[] }>(h, 'GET', '/api/v1/clients')).body.data[0]!.id
      const template = (
        await api(h, 'POST', `/api/v1/templates?client_id=${clientId}`, {
          name: 'Normal',
          subject: 'Offers for {{ contact.first_name | default: "you" }}',
          body_html:
            '<h1>Hi {{ contact.first_name }}</h1><ul>{% for i in (1..5) %}<li>Offer {{ i }} for {{ contact.custom.plan }}</li>{% endfor %}</ul>',
        })
      ).body.data
      const body = { sample: { contact: { first_name: 'Ann', custom: { plan: 'pro' } } } }
      const path = `/api/v1/templates/${template.id}/preview`
      for (let i = 0; i < 30; i++) await api(h, 'POST', path, body) // warm-up
      const ms: number[] = []
      for (let i = 0; i < N; i++) ms.push((await api(h, 'POST', path, body)).ms)
      ms.sort((a, b) => a - b)
      const p50 = percentile(ms, 0.5)
      const p95 = percentile(ms, 0.95)
      console.log(
        `| preview of a normal template (${fmt(N)} requests) | p50 ${fmt(p50, 2)} ms | p95 ${fmt(p95, 2)} ms |`,
      )
      console.log(JSON.stringify({ bench: 'preview', requests: N, p50_ms: p50, p95_ms: p95 }))
      return true
    } finally {
      await stopHerald(h)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

runBench(main)
