// Two sending profiles at once against one, in the same run:
// `bun run test/bench/profiles-smtp.ts [--recipients N] [--rounds R]` (default 4,000 recipients,
// 2 rounds). dist/herald (built when stale; its own email provider is capture) has two clients,
// each with its own SMTP account in its sending profile, pointing at a sink of its own
// (test/bench/smtp.ts, a child process each), and a verified, DKIM-signing domain. Each round
// sends N DKIM-signed messages: first one client's campaign of N through its profile alone, then
// both clients' campaigns of N/2 at once, each through its own. Rate = N / (launch → both sent);
// the best of each kind counts. Bar: two profiles ≥ 0.9 × one profile.
// Prints a Markdown table and one JSON line; exit code 1 when the bar is missed.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { HTML, TEXT } from './fixtures'
import {
  api,
  BenchError,
  ensureBinary,
  fmt,
  type Herald,
  progress,
  runBench,
  startHerald,
  stopHerald,
} from './lib'
import { sendingEnds, startDns, startSink, verifiedSender } from './smtp-parts'

const KEY = `hrld_${'Bench0Profiles1Smtp2Key3'.repeat(2)}`
const BAR = 0.9
const IN_FLIGHT = 64
const POOL = 5

const { values } = parseArgs({
  options: { recipients: { type: 'string' }, rounds: { type: 'string' } },
})
const N = Number(values.recipients ?? process.env.HERALD_BENCH_PROFILE_RECIPIENTS ?? 4_000)
const ROUNDS = Number(values.rounds ?? 2)

interface Tenant {
  clientId: string
  /** Lists of all N recipients and of the first N/2. */
  full: string
  half: string
  template: string
}

/** A client with its own SMTP account (the sink at `port`), a verified domain and its lists. */
async function tenant(h: Herald, zone: Map<string, string[]>, name: string, port: number): Promise<Tenant> {
  const clientId = (await api(h, 'POST', '/api/v1/clients', { name })).body.data.id as string
  await api(h, 'PUT', `/api/v1/clients/${clientId}/sending`, {
    email: { provider: 'smtp', smtp_url: `smtp://127.0.0.1:${port}`, pool: POOL },
  })
  const q = `?client_id=${clientId}`
  await verifiedSender(h, zone, q, `${name}.example`)
  const list = async (size: number) => {
    const id = (await api(h, 'POST', `/api/v1/lists${q}`, { name: `${size}` })).body.data.id as string
    const csv = [
      'email,first_name',
      ...Array.from({ length: size }, (_, i) => `p${i}@inbox${i % 20}.example,P${i}`),
    ].join('\n')
    const job = (await api(h, 'POST', `/api/v1/contacts/imports${q}&list_id=${id}`, csv, 'text/csv')).body
      .data
    while ((await api(h, 'GET', `/api/v1/contacts/imports/${job.id}`)).body.data.status !== 'completed')
      await Bun.sleep(100)
    return id
  }
  const template = (
    await api(h, 'POST', `/api/v1/templates${q}`, {
      name: 'T',
      subject: 'Spring for {{ contact.first_name }}',
      body_html: HTML,
      body_text: TEXT,
    })
  ).body.data.id as string
  return { clientId, full: await list(N), half: await list(N / 2), template }
}

/** Launches a campaign per (tenant, list) at once; messages a second until all are sent. */
async function send(h: Herald, runs: [Tenant, string][]): Promise<number> {
  const ids: string[] = []
  for (const [t, listId] of runs)
    ids.push(
      (
        await api(h, 'POST', `/api/v1/campaigns?client_id=${t.clientId}`, {
          name: 'Spring',
          list_id: listId,
          template_id: t.template,
        })
      ).body.data.id as string,
    )
  const t0 = performance.now()
  await Promise.all(ids.map((id) => api(h, 'POST', `/api/v1/campaigns/${id}/launch`, { confirm: true })))
  for (const id of ids) {
    const status = await sendingEnds(h, id)
    if (status !== 'sent') throw new BenchError(`campaign ${id} ended ${status}`)
  }
  const seconds = (performance.now() - t0) / 1000
  const delivered = await Promise.all(
    ids.map(
      async (id) => (await api(h, 'GET', `/api/v1/campaigns/${id}/stats`)).body.data.delivered as number,
    ),
  )
  const total = delivered.reduce((a, b) => a + b, 0)
  if (total !== N) throw new BenchError(`delivered ${total} of ${N}`)
  return N / seconds
}

async function main(): Promise<boolean> {
  await ensureBinary()
  const dir = mkdtempSync(join(tmpdir(), 'herald-bench-profiles-'))
  const sinks = [await startSink(null), await startSink(null)]
  const zone = new Map<string, string[]>()
  const dns = await startDns(zone)
  let h: Herald | null = null
  try {
    h = await startHerald(join(dir, 'data'), KEY, {
      HERALD_EMAIL_PROVIDER: 'capture',
      HERALD_DNS_SERVERS: dns.address,
      HERALD_SEND_CONCURRENCY: String(IN_FLIGHT),
      HERALD_WARMUP: 'off', // the bench's new domains would otherwise be capped to their first day
    })
    progress(`two clients with their own SMTP accounts; ${fmt(N)} DKIM-signed messages a round`)
    const a = await tenant(h, zone, 'alpha', sinks[0]!.port)
    const b = await tenant(h, zone, 'beta', sinks[1]!.port)
    const one: number[] = []
    const two: number[] = []
    const split: number[] = []
    for (let round = 1; round <= ROUNDS; round++) {
      progress(`round ${round}: one profile`)
      one.push(await send(h, [[a, a.full]]))
      progress(`round ${round}: two profiles at once`)
      two.push(
        await send(h, [
          [a, a.half],
          [b, b.half],
        ]),
      )
      // What two campaigns at once cost whatever their profiles: the same split, one profile.
      progress(`round ${round}: two campaigns of one profile at once`)
      split.push(
        await send(h, [
          [a, a.half],
          [a, a.half],
        ]),
      )
    }
    const best = { one: Math.max(...one), two: Math.max(...two), split: Math.max(...split) }
    const ratio = best.two / best.one
    console.log('| Measure | Value |\n|---|---|')
    console.log(`| one profile, one campaign, msgs/s (best of ${ROUNDS}) | ${fmt(best.one)} |`)
    console.log(`| two profiles at once, a campaign each, msgs/s (best of ${ROUNDS}) | ${fmt(best.two)} |`)
    console.log(`| one profile, two campaigns at once, msgs/s (best of ${ROUNDS}) | ${fmt(best.split)} |`)
    console.log(
      `| two profiles / one (bar ≥ ${BAR}) | ${fmt(ratio, 2)} ${ratio >= BAR ? 'pass' : 'MISSED'} |`,
    )
    console.log(JSON.stringify({ profiles_smtp: { recipients: N, one, two, split, ratio } }))
    return ratio >= BAR
  } finally {
    if (h) await stopHerald(h)
    dns.close()
    for (const s of sinks) s.sink.kill()
    rmSync(dir, { recursive: true, force: true })
  }
}

runBench(main)
