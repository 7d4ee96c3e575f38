// A/B campaign bar, `bun run test/bench/ab-campaign.ts [--recipients N]` (default 100,000): in
// one dist/herald with the capture provider, a plain campaign and an A/B campaign (two subjects,
// 20 % test share) to the same imported audience, two interleaved rounds, best of each. The A/B
// rate is recipients over the time spent sending: launch until the test share is out, plus from
// the decision (taken through POST /ab-test/winner as soon as the test share is out, the same
// release the decision job makes) until `sent` — the test's deliberate wait is not sending time.
// Bar: A/B ≥ 0.9 × plain. Prints a Markdown table and one JSON line; exit code 1 when missed.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { crmCampaignWorld } from './crm-audience'
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

const KEY = `hrld_${'Bench0AbTest1Key2'.repeat(2)}`
const BAR = 0.9
const ROUNDS = 2
const TEST_SHARE = 0.2

const { values } = parseArgs({ options: { recipients: { type: 'string', default: '100000' } } })
const N = Number(values.recipients)
if (!Number.isInteger(N) || N < 1000) throw new BenchError('--recipients must be a whole number >= 1000')

type Stats = { status: string; sent: number }
// Progress is read from the campaign (its maintained counters), as the plain round does; the
// stats' per-variant figures are a grouped read of the messages, read once at the end.
const stats = async (h: Herald, id: string) => {
  const c = (
    await api<{ data: { status: string; total_sent: number | null } }>(h, 'GET', `/api/v1/campaigns/${id}`)
  ).body.data
  return { status: c.status, sent: c.total_sent ?? 0 }
}

async function until(h: Herald, id: string, done: (s: Stats) => boolean): Promise<Stats> {
  const t0 = performance.now()
  for (;;) {
    const s = await stats(h, id)
    if (done(s)) return s
    if (s.status === 'failed' || s.status === 'cancelled')
      throw new BenchError(`the campaign ended ${s.status}`)
    if (performance.now() - t0 > 30 * 60_000) throw new BenchError('not done within 30 minutes')
    await Bun.sleep(50)
  }
}

async function main(): Promise<boolean> {
  await ensureBinary()
  const dir = mkdtempSync(join(tmpdir(), 'herald-bench-ab-'))
  try {
    const h = await startHerald(join(dir, 'data'), KEY)
    const { q, list, template } = await crmCampaignWorld(h, N)
    const create = async (name: string, ab: boolean) =>
      (
        await api<{ data: { id: string } }>(h, 'POST', `/api/v1/campaigns${q}`, {
          name,
          list_id: list.id,
          template_id: template.id,
          ...(ab
            ? {
                variants: [
                  { name: 'Season', subject: 'Spring for {{ contact.first_name }}' },
                  { name: 'Offer', subject: '{{ contact.first_name }}, 20 % off this week' },
                ],
                ab_test: { test_share: TEST_SHARE, metric: 'open_rate', duration: 'PT4H' },
              }
            : {}),
        })
      ).body.data.id

    const plainRates: number[] = []
    const abRates: number[] = []
    const statsMs: number[] = []
    const copyMs: number[] = []
    for (let round = 1; round <= ROUNDS; round++) {
      progress(`round ${round}: plain campaign of ${fmt(N)}`)
      const plain = await create(`Plain ${round}`, false)
      let t0 = performance.now()
      await api(h, 'POST', `/api/v1/campaigns/${plain}/launch`, { confirm: true })
      await until(h, plain, (s) => s.status === 'sent')
      plainRates.push(N / ((performance.now() - t0) / 1000))

      progress(`round ${round}: A/B campaign of ${fmt(N)} (${TEST_SHARE * 100} % test)`)
      const ab = await create(`A/B ${round}`, true)
      const testSize = Math.round(N * TEST_SHARE)
      t0 = performance.now()
      await api(h, 'POST', `/api/v1/campaigns/${ab}/launch`, { confirm: true })
      for (;;) {
        const c = (
          await api<{ data: { ab_test_state: { phase: string } } }>(h, 'GET', `/api/v1/campaigns/${ab}`)
        ).body.data
        if (c.ab_test_state.phase !== 'waiting') break
        await Bun.sleep(20)
      }
      copyMs.push(performance.now() - t0)
      await until(h, ab, (s) => s.sent >= testSize)
      const testMs = performance.now() - t0
      const t1 = performance.now()
      const pick = await api(h, 'POST', `/api/v1/campaigns/${ab}/ab-test/winner`, { variant: 'Offer' })
      if (pick.status !== 200) throw new BenchError(`pick answered ${pick.status}`)
      await until(h, ab, (s) => s.status === 'sent')
      abRates.push(N / ((testMs + performance.now() - t1) / 1000))
      const q0 = performance.now()
      const final = (
        await api<{ data: { delivered: number; variants: { sent: number }[] } }>(
          h,
          'GET',
          `/api/v1/campaigns/${ab}/stats`,
        )
      ).body.data
      statsMs.push(performance.now() - q0)
      if (final.delivered !== N || final.variants.reduce((n, v) => n + v.sent, 0) !== N)
        throw new BenchError(`A/B delivered ${final.delivered} of ${N}`)
    }
    await stopHerald(h)
    const plain = Math.max(...plainRates)
    const ab = Math.max(...abRates)
    const ratio = ab / plain
    console.log(`\nA/B campaign vs plain, ${fmt(N)} recipients, capture provider, best of ${ROUNDS}\n`)
    console.log('| measure | result | bar | met |\n|---|---|---|---|')
    console.log(
      `| plain campaign | ${fmt(plain)} msg/s (rounds ${plainRates.map((r) => fmt(r)).join(', ')}) | - | - |`,
    )
    console.log(
      `| A/B campaign, sending time | ${fmt(ab)} msg/s (rounds ${abRates.map((r) => fmt(r)).join(', ')}) | - | - |`,
    )
    console.log(
      `| A/B: launch until the groups are drawn (the audience copied first) | ${fmt(Math.min(...copyMs))} ms | - | - |`,
    )
    console.log(
      `| GET /stats of the A/B campaign (per-variant figures) | ${fmt(Math.min(...statsMs), 1)} ms | - | - |`,
    )
    console.log(`| A/B / plain | ${fmt(ratio, 2)} | ≥ ${BAR} | ${ratio >= BAR ? 'yes' : '**no**'} |`)
    console.log(
      JSON.stringify({
        recipients: N,
        plain_rate: plain,
        ab_rate: ab,
        ratio,
        plainRates,
        abRates,
        statsMs,
        copyMs,
      }),
    )
    return ratio >= BAR
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

runBench(main)
