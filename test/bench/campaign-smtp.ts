// A DKIM-signed email campaign through the whole engine (issue 5's SMTP bar),
// `bun run test/bench/campaign-smtp.ts [--recipients N]` (default 5,000):
//  1. the raw baseline: `test/bench/smtp.ts` (a pooled nodemailer blast of pre-rendered,
//     DKIM-signed messages to a local smtp-server sink), run first in the same run;
//  2. dist/herald sends an N-recipient campaign (template render, tracking, DKIM RSA-2048,
//     outcome + event per message) over SMTP to the same kind of sink, with its sending domain
//     verified against a DNS server started here. Rate = N / (launch → sent).
// Bars: engine ≥ 0.8 × raw blast; ≥ 1,000 DKIM-signed messages/s unpinned on 2 cores.
// Prints a Markdown table and one JSON line; exit code 1 when a bar is missed.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import dns2 from 'dns2'
import { HTML, TEXT } from './fixtures'
import {
  api,
  BenchError,
  ensureBinary,
  fmt,
  progress,
  ROOT,
  runBench,
  startHerald,
  stopHerald,
  track,
} from './lib'

const KEY = `hrld_${'Bench0Smtp1Campaign2Key3'.repeat(2)}`
const { values } = parseArgs({ options: { recipients: { type: 'string', default: '5000' } } })
const N = Number(values.recipients)

/** An authoritative TXT server on loopback for the domain's DKIM/SPF/DMARC records. */
async function startDns(zone: Map<string, string[]>) {
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = dns2.Packet.createResponseFromRequest(request)
      const q = request.questions[0]!
      for (const parts of [zone.get(q.name.toLowerCase())].filter(Boolean) as string[][])
        response.answers.push({
          name: q.name,
          type: dns2.Packet.TYPE.TXT,
          class: dns2.Packet.CLASS.IN,
          ttl: 60,
          data: parts,
        } as never)
      send(response)
    },
  })
  const address = await new Promise<{ port: number }>((resolve) => {
    server.on('listening', (a: { udp: { port: number } }) => resolve(a.udp))
    server.listen({ udp: { port: 0, address: '127.0.0.1' } })
  })
  return { address: `127.0.0.1:${address.port}`, close: () => server.close() }
}

async function rawBlast(): Promise<{ rawRate: number; providerRate: number }> {
  progress('raw baseline: bun run test/bench/smtp.ts (best of 3)')
  const proc = track(
    Bun.spawn([process.execPath, 'run', join(ROOT, 'test/bench/smtp.ts')], {
      cwd: ROOT,
      stdout: 'pipe',
      stderr: 'inherit',
    }),
  )
  const out = await new Response(proc.stdout).text()
  await proc.exited
  const line = out.trim().split('\n').at(-1) ?? ''
  try {
    return JSON.parse(line)
  } catch {
    throw new BenchError(`no JSON line from smtp.ts: ${out.slice(-300)}`)
  }
}

async function main(): Promise<boolean> {
  await ensureBinary()
  const baseline = await rawBlast()
  const sink = track(
    Bun.spawn([process.execPath, 'run', join(ROOT, 'test/bench/smtp.ts'), 'sink'], {
      stdout: 'pipe',
      stderr: 'inherit',
    }),
  )
  const port = Number(new TextDecoder().decode((await sink.stdout.getReader().read()).value).trim())
  const zone = new Map<string, string[]>()
  const dns = await startDns(zone)
  const dir = mkdtempSync(join(tmpdir(), 'herald-bench-smtp-'))
  try {
    const h = await startHerald(join(dir, 'data'), KEY, {
      HERALD_SMTP_URL: `smtp://127.0.0.1:${port}`,
      HERALD_DNS_SERVERS: dns.address,
      HERALD_SEND_CONCURRENCY: '64',
      HERALD_SMTP_POOL: '5',
    })
    const clientId = (await api<{ data: { id: string }[] }>(h, 'GET', '/api/v1/clients')).body.data[0]!.id
    const q = `?client_id=${clientId}`
    const domain = (await api(h, 'POST', `/api/v1/domains${q}`, { domain: 'news.example' })).body.data
    for (const r of domain.dns_records as { name: string; value: string; value_parts?: string[] }[])
      zone.set(r.name.toLowerCase(), r.value_parts ?? [r.value])
    const verified = (await api(h, 'POST', `/api/v1/domains/${domain.id}/verify`)).body.data
    if (!verified.verified)
      throw new BenchError(`the domain did not verify: ${JSON.stringify(verified).slice(0, 300)}`)
    await api(h, 'POST', `/api/v1/senders${q}`, { from_email: 'offers@news.example', from_name: 'News' })
    const list = (await api(h, 'POST', `/api/v1/lists${q}`, { name: 'All' })).body.data
    const csv = [
      'email,first_name,company',
      ...Array.from({ length: N }, (_, i) => `p${i}@inbox${i % 20}.example,P${i},Co ${i % 97}`),
    ].join('\n')
    const job = (await api(h, 'POST', `/api/v1/contacts/imports${q}&list_id=${list.id}`, csv, 'text/csv'))
      .body.data
    while ((await api(h, 'GET', `/api/v1/contacts/imports/${job.id}`)).body.data.status !== 'completed')
      await Bun.sleep(100)
    const tpl = (
      await api(h, 'POST', `/api/v1/templates${q}`, {
        name: 'T',
        subject: 'Spring for {{ contact.first_name }}',
        body_html: HTML,
        body_text: TEXT,
      })
    ).body.data
    const c = (
      await api(h, 'POST', `/api/v1/campaigns${q}`, { name: 'Spring', list_id: list.id, template_id: tpl.id })
    ).body.data
    progress(`sending ${fmt(N)} DKIM-signed messages through dist/herald`)
    const t0 = performance.now()
    await api(h, 'POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
    let status = 'sending'
    while (status === 'sending') {
      await Bun.sleep(50)
      status = (await api(h, 'GET', `/api/v1/campaigns/${c.id}`)).body.data.status as string
    }
    const seconds = (performance.now() - t0) / 1000
    const stats = (await api(h, 'GET', `/api/v1/campaigns/${c.id}/stats`)).body.data
    if (status !== 'sent' || stats.delivered !== N)
      throw new BenchError(`campaign ${status}, delivered ${stats.delivered} of ${N}`)
    await stopHerald(h)
    const rate = N / seconds
    const ratio = rate / baseline.rawRate
    const rows = [
      [
        'raw nodemailer blast, pre-rendered + DKIM-signed (smtp.ts)',
        `${fmt(baseline.rawRate)} msg/s`,
        'baseline',
        true,
      ],
      ['smtp provider alone, compose + DKIM (smtp.ts)', `${fmt(baseline.providerRate)} msg/s`, '', true],
      [
        `campaign of ${fmt(N)} through dist/herald (launch → sent)`,
        `${fmt(rate)} msg/s (${fmt(seconds, 1)} s)`,
        '≥ 1,000 msg/s',
        rate >= 1000,
      ],
      ['engine / raw blast', ratio.toFixed(2), '≥ 0.8', ratio >= 0.8],
    ] as const
    console.log('\n| measure | result | bar | met |\n|---|---|---|---|')
    for (const [m, r, b, ok] of rows)
      console.log(`| ${m} | ${r} | ${b} | ${b ? (ok ? 'yes' : '**no**') : ''} |`)
    console.log(
      JSON.stringify({
        recipients: N,
        rate,
        seconds,
        raw_rate: baseline.rawRate,
        provider_rate: baseline.providerRate,
        ratio,
      }),
    )
    return rows.every((r) => r[3])
  } finally {
    dns.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

runBench(main)
