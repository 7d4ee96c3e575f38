// A DKIM-signed email campaign through the whole engine (issues 5 and 15),
// `bun run test/bench/campaign-smtp.ts [--recipients N] [--threads T] [--pool P] [--in-flight F] [--unpinned-only]`
// (default 5,000 recipients; T sets HERALD_SEND_THREADS, default the binary's own; P the SMTP
// connections and F the sends in flight of both the raw blast and Herald, default 5 and 64). All on 127.0.0.1:
//  1. raw baseline: a nodemailer pooled blast of N pre-rendered messages, each DKIM-signed
//     (RSA-2048) by nodemailer as it is sent, to a local smtp-server sink in a child process —
//     pinned to core 0 with the sink on core 1 (issue 5's "~700 msg/s on one core"), and
//     unpinned (issue 15). For reference also the same blast of messages signed before the clock
//     starts (signing not measured at all).
//  2. dist/herald sends an N-recipient campaign (template render, tracking, DKIM, outcome + event
//     per message) to the same sink; the sending domain is verified against a DNS server started
//     here. Rate = N / (launch → sent). Pinned to core 0 (bar: ≥ 0.8 × the pinned raw blast), and
//     unpinned (bars: ≥ 1,000 msg/s and ≥ 1.5 × the unpinned raw blast). The unpinned run also
//     reports where the CPU went: Herald's main thread, its send threads, its other threads (the
//     crypto pool, GC), and the sink.
// `… campaign-smtp.ts blast PORT N` is the raw blast's child process.
// Prints a Markdown table and one JSON line; exit code 1 when a bar is missed.

import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import nodemailer from 'nodemailer'
import MailComposer from 'nodemailer/lib/mail-composer'
import { smtpTransportOptions } from '../../src/channels/smtp'
import { DKIM_HEADER_FIELDS, signMessage } from '../../src/services/domains/dkim'
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
  track,
} from './lib'
import { sendingEnds, startDns, startSink, verifiedSender } from './smtp-parts'

const KEY = `hrld_${'Bench0Smtp1Campaign2Key3'.repeat(2)}`
/** Sends in flight, the raw blast's and Herald's (HERALD_SEND_CONCURRENCY) alike (--in-flight). */
let IN_FLIGHT = 64
/** SMTP connections, the raw blast's and Herald's alike (--pool). */
let POOL = 5

/** The raw blast (child process): N messages like the campaign's, 64 in flight, two ways. */
async function blast(port: number, n: number, pool: number, inFlight: number) {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const dkim = {
    domainName: 'news.example',
    keySelector: 'bench',
    privateKey,
    headerFieldNames: DKIM_HEADER_FIELDS,
  }
  const transport = nodemailer.createTransport(
    smtpTransportOptions({ url: `smtp://127.0.0.1:${port}`, pool }),
  )
  const html = HTML.replace(/\{\{[^}]*\}\}/g, 'Ann')
  const mail = (i: number) => ({
    from: { name: 'News', address: 'offers@news.example' },
    to: `p${i}@inbox.example`,
    subject: `Spring for P${i}`,
    messageId: `<bench-${i}@news.example>`,
    html: html.replace('Hello', `Hello P${i}`),
    text: TEXT.replace(/\{\{[^}]*\}\}/g, 'Ann'),
    headers: {
      'List-Unsubscribe': `<https://herald.example/u/${i}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  })
  let cpuMs = 0 // CPU of this process (all its threads) a message, during the last run
  const run = async (send: (i: number) => Promise<unknown>) => {
    let next = 0
    const t0 = performance.now()
    const cpu0 = process.cpuUsage()
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < n) await send(next++)
      }),
    )
    const cpu = process.cpuUsage(cpu0)
    cpuMs = (cpu.user + cpu.system) / 1000 / n
    return n / ((performance.now() - t0) / 1000)
  }
  const envelope = (i: number) => ({ from: 'bounce@news.example', to: [`p${i}@inbox.example`] })
  const signing = await run((i) => transport.sendMail({ ...mail(i), dkim }))
  const signingCpuMs = cpuMs
  const presigned = await Promise.all(
    Array.from({ length: n }, async (_, i) =>
      signMessage(await new MailComposer(mail(i)).compile().build(), dkim),
    ),
  )
  const signedBefore = await run((i) => transport.sendMail({ envelope: envelope(i), raw: presigned[i]! }))
  transport.close()
  console.log(JSON.stringify({ signing, signedBefore, signingCpuMs }))
}

async function rawBaseline(
  pinned: boolean,
): Promise<{ signing: number; signedBefore: number; signingCpuMs: number }> {
  const { sink, port } = await startSink(pinned ? '1' : null)
  progress(`raw baseline: nodemailer pooled blast ${pinned ? 'on core 0, sink on core 1' : 'unpinned'}`)
  const cmd = [
    process.execPath,
    'run',
    import.meta.path,
    'blast',
    String(port),
    String(N),
    String(POOL),
    String(IN_FLIGHT),
  ]
  const proc = track(
    Bun.spawn(pinned ? ['taskset', '-c', '0', ...cmd] : cmd, { stdout: 'pipe', stderr: 'inherit' }),
  )
  const out = await new Response(proc.stdout).text()
  await proc.exited
  sink.kill()
  try {
    return JSON.parse(out.trim().split('\n').at(-1) ?? '')
  } catch {
    throw new BenchError(`no result from the raw blast: ${out.slice(-300)}`)
  }
}

/** Starts herald (pinned or not) with a sink, verifies the domain, sends one campaign; msgs/s. */
async function campaignRate(
  dir: string,
  cpus: string | null,
  sinkCpus: string | null,
  listId: string | null,
): Promise<{ rate: number; listId: string; cpu: CpuShares }> {
  const { sink, port } = await startSink(sinkCpus)
  const zone = new Map<string, string[]>()
  const dns = await startDns(zone)
  let h: Herald | null = null
  try {
    h = await startHerald(
      join(dir, 'data'),
      KEY,
      {
        HERALD_SMTP_URL: `smtp://127.0.0.1:${port}`,
        HERALD_DNS_SERVERS: dns.address,
        HERALD_SEND_CONCURRENCY: String(IN_FLIGHT),
        HERALD_SMTP_POOL: String(POOL),
        HERALD_WARMUP: 'off', // the bench's new domain would otherwise be capped to its first day
        ...(THREADS === null ? {} : { HERALD_SEND_THREADS: THREADS }),
      },
      cpus ? { cpus } : {},
    )
    const clientId = (await api<{ data: { id: string }[] }>(h, 'GET', '/api/v1/clients')).body.data[0]!.id
    const q = `?client_id=${clientId}`
    if (!listId) {
      await verifiedSender(h, zone, q, 'news.example')
      listId = (await api(h, 'POST', `/api/v1/lists${q}`, { name: 'All' })).body.data.id as string
      const csv = [
        'email,first_name,company',
        ...Array.from({ length: N }, (_, i) => `p${i}@inbox${i % 20}.example,P${i},Co ${i % 97}`),
      ].join('\n')
      const job = (await api(h, 'POST', `/api/v1/contacts/imports${q}&list_id=${listId}`, csv, 'text/csv'))
        .body.data
      while ((await api(h, 'GET', `/api/v1/contacts/imports/${job.id}`)).body.data.status !== 'completed')
        await Bun.sleep(100)
    }
    const tpl = (
      await api(h, 'POST', `/api/v1/templates${q}`, {
        name: 'T',
        subject: 'Spring for {{ contact.first_name }}',
        body_html: HTML,
        body_text: TEXT,
      })
    ).body.data
    const c = (
      await api(h, 'POST', `/api/v1/campaigns${q}`, { name: 'Spring', list_id: listId, template_id: tpl.id })
    ).body.data
    progress(
      `sending ${fmt(N)} DKIM-signed messages through dist/herald (${cpus ? `core ${cpus}` : 'unpinned'})`,
    )
    const cpu0 = { herald: threadTicks(h.proc.pid), sink: processTicks(sink.pid) }
    const t0 = performance.now()
    await api(h, 'POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
    const status = await sendingEnds(h, c.id as string)
    const seconds = (performance.now() - t0) / 1000
    const cpu = cpuShares(h.proc.pid, cpu0, processTicks(sink.pid), seconds)
    const stats = (await api(h, 'GET', `/api/v1/campaigns/${c.id}/stats`)).body.data
    if (status !== 'sent' || stats.delivered !== N)
      throw new BenchError(`campaign ${status}, delivered ${stats.delivered} of ${N}`)
    return { rate: N / seconds, listId, cpu }
  } finally {
    if (h) await stopHerald(h)
    dns.close()
    sink.kill()
  }
}

// CPU used during the send, in % of one core: /proc/<pid>/task/<tid>/stat (utime + stime, in
// ticks of 10 ms). Herald's threads by name: the main thread, its send threads ("Worker"), Bun's
// pool (WebCrypto signatures), the rest (GC, JIT).
type Ticks = Map<number, { name: string; ticks: number }>
function statTicks(path: string): { name: string; ticks: number } {
  const stat = readFileSync(path, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return {
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    ticks: Number(f[11]) + Number(f[12]),
  }
}
function threadTicks(pid: number): Ticks {
  const out: Ticks = new Map()
  for (const tid of readdirSync(`/proc/${pid}/task`))
    try {
      out.set(Number(tid), statTicks(`/proc/${pid}/task/${tid}/stat`))
    } catch {} // ended meanwhile
  return out
}
const processTicks = (pid: number) => statTicks(`/proc/${pid}/stat`).ticks

interface CpuShares {
  main: number
  sendThreads: number
  cryptoPool: number
  other: number
  sink: number
  /** Herald's CPU (all its threads) a message, in ms. */
  msPerMessage: number
}
function cpuShares(pid: number, before: { herald: Ticks; sink: number }, sinkTicks: number, seconds: number) {
  const pct = (ticks: number) => ticks / seconds // 100 ticks a second = 100 %
  const shares: CpuShares = {
    main: 0,
    sendThreads: 0,
    cryptoPool: 0,
    other: 0,
    sink: pct(sinkTicks - before.sink),
    msPerMessage: 0,
  }
  for (const [tid, { name, ticks }] of threadTicks(pid)) {
    const used = pct(ticks - (before.herald.get(tid)?.ticks ?? 0))
    if (tid === pid) shares.main += used
    else if (name === 'Worker') shares.sendThreads += used
    else if (name.startsWith('Bun Pool')) shares.cryptoPool += used
    else shares.other += used
  }
  // % of a core × seconds = CPU ms / 10.
  shares.msPerMessage =
    ((shares.main + shares.sendThreads + shares.cryptoPool + shares.other) * seconds * 10) / N
  return shares
}

let N = 5000
let THREADS: string | null = null

async function main(): Promise<boolean> {
  const { values } = parseArgs({
    options: {
      recipients: { type: 'string', default: '5000' },
      threads: { type: 'string' },
      pool: { type: 'string', default: '5' },
      'in-flight': { type: 'string', default: '64' },
      'unpinned-only': { type: 'boolean', default: false },
    },
  })
  N = Number(values.recipients)
  if (!Number.isInteger(N) || N < 100) throw new BenchError('--recipients must be a whole number >= 100')
  THREADS = values.threads ?? null
  POOL = Number(values.pool)
  if (!Number.isInteger(POOL) || POOL < 1) throw new BenchError('--pool must be a whole number >= 1')
  IN_FLIGHT = Number(values['in-flight'])
  if (!Number.isInteger(IN_FLIGHT) || IN_FLIGHT < 1 || IN_FLIGHT > 256)
    throw new BenchError('--in-flight must be a whole number from 1 to 256')
  const both = !values['unpinned-only']
  await ensureBinary()
  const rawPinned = both ? await rawBaseline(true) : null
  const raw = await rawBaseline(false)
  const dir = mkdtempSync(join(tmpdir(), 'herald-bench-smtp-'))
  try {
    const pinned = both ? await campaignRate(dir, '0', '1', null) : null
    const unpinned = await campaignRate(dir, null, null, pinned?.listId ?? null)
    const pinnedRatio = pinned && rawPinned ? pinned.rate / rawPinned.signing : null
    const ratio = unpinned.rate / raw.signing
    const c = unpinned.cpu
    const pct = (n: number) => `${n.toFixed(0)} %`
    const rows: [string, string, string, boolean | null][] = []
    if (rawPinned && pinned && pinnedRatio !== null)
      rows.push(
        [
          'raw blast on core 0 (sink on core 1), nodemailer signs each message as it sends',
          `${fmt(rawPinned.signing)} msg/s`,
          'baseline',
          null,
        ],
        [
          '… messages signed before the clock starts (reference)',
          `${fmt(rawPinned.signedBefore)} msg/s`,
          '',
          null,
        ],
        [`campaign of ${fmt(N)} through dist/herald on core 0`, `${fmt(pinned.rate)} msg/s`, '', null],
        ['campaign / raw blast, both on core 0', pinnedRatio.toFixed(2), '≥ 0.8', pinnedRatio >= 0.8],
      )
    rows.push(
      [
        'raw blast unpinned, nodemailer signs each message as it sends',
        `${fmt(raw.signing)} msg/s`,
        'baseline',
        null,
      ],
      ['… messages signed before the clock starts (reference)', `${fmt(raw.signedBefore)} msg/s`, '', null],
      [
        `campaign of ${fmt(N)} through dist/herald, unpinned (2 cores)`,
        `${fmt(unpinned.rate)} msg/s`,
        '≥ 1,000 msg/s',
        unpinned.rate >= 1000,
      ],
      ['campaign / raw blast, both unpinned', ratio.toFixed(2), '≥ 1.5', ratio >= 1.5],
      [
        'CPU during the unpinned campaign: main thread / send threads / crypto pool / other threads / sink',
        [c.main, c.sendThreads, c.cryptoPool, c.other, c.sink].map(pct).join(' / '),
        '',
        null,
      ],
      [
        'CPU a message, every thread of the process (sink not counted): campaign / raw blast, unpinned',
        `${c.msPerMessage.toFixed(2)} / ${raw.signingCpuMs.toFixed(2)} ms`,
        '',
        null,
      ],
    )
    console.log('\n| measure | result | bar | met |\n|---|---|---|---|')
    for (const [m, r, b, ok] of rows)
      console.log(`| ${m} | ${r} | ${b} | ${ok === null ? '' : ok ? 'yes' : '**no**'} |`)
    console.log(
      JSON.stringify({
        recipients: N,
        threads: THREADS,
        pool: POOL,
        in_flight: IN_FLIGHT,
        raw_pinned_signing: rawPinned?.signing ?? null,
        raw_pinned_signed_before: rawPinned?.signedBefore ?? null,
        pinned: pinned?.rate ?? null,
        pinned_ratio: pinnedRatio,
        raw_signing: raw.signing,
        raw_signed_before: raw.signedBefore,
        raw_cpu_ms: raw.signingCpuMs,
        unpinned: unpinned.rate,
        ratio,
        cpu: c,
      }),
    )
    return (pinnedRatio === null || pinnedRatio >= 0.8) && unpinned.rate >= 1000 && ratio >= 1.5
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[2] === 'blast')
  await blast(
    Number(process.argv[3]),
    Number(process.argv[4]),
    Number(process.argv[5]),
    Number(process.argv[6]),
  )
else runBench(main)
