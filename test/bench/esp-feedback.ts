// ESP feedback bar, `bun run test/bench/esp-feedback.ts [--notifications N]` (default
// 300), on dist/herald with the capture provider: a client with a Mailgun signing key in its
// sending profile and a webhook subscribed to email.bounced sends N messages; then a signed
// Mailgun "failed permanent" notification per message is posted, one at a time, and each is
// timed from the POST until its suppression exists and its email.bounced webhook delivery is
// queued (both read from the data file by this process, so polling adds no work to the server).
// Bar: p99 ≤ 1 s. Then the same N again as one burst (all posted at once): the time until the
// last one is in. Prints a Markdown table and one JSON line; exit code 1 when the bar is missed.

import { Database } from 'bun:sqlite'
import { createHmac } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { api, BenchError, ensureBinary, fmt, progress, runBench, startHerald } from './lib'

const KEY = `hrld_${'Bench0Feedback1Key2'.repeat(2)}`
const SIGNING_KEY = 'key-bench-mailgun-signing-0123456789'
const BAR_P99_MS = 1000

const { values } = parseArgs({ options: { notifications: { type: 'string', default: '300' } } })
const N = Number(values.notifications)
if (!Number.isInteger(N) || N < 10) throw new BenchError('--notifications must be a whole number >= 10')

type Data<T = Record<string, unknown>> = { data: T }

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0
}

/** A Mailgun webhook body for a permanent failure of the message, signed as Mailgun signs it. */
function mailgunFailed(to: string, messageId: string): string {
  const timestamp = String(Math.floor(Date.now() / 1000))
  const token = crypto.randomUUID().replaceAll('-', '')
  const signature = createHmac('sha256', SIGNING_KEY)
    .update(timestamp + token)
    .digest('hex')
  return JSON.stringify({
    signature: { timestamp, token, signature },
    'event-data': {
      event: 'failed',
      id: token.slice(0, 22),
      timestamp: Date.now() / 1000,
      severity: 'permanent',
      reason: 'bounce',
      recipient: to,
      'delivery-status': { code: 550, message: '5.1.1 The email account does not exist' },
      message: { headers: { to, 'message-id': messageId.replace(/^<|>$/g, '') } },
    },
  })
}

async function main(): Promise<boolean> {
  await ensureBinary()
  const dir = mkdtempSync(join(tmpdir(), 'herald-bench-fb-'))
  const receiver = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: () => new Response(null, { status: 204 }),
  })
  try {
    const dataDir = join(dir, 'data')
    const h = await startHerald(dataDir, KEY, { HERALD_WEBHOOK_ALLOW_PRIVATE: '1' })
    const clientId = (await api<Data<{ id: string }[]>>(h, 'GET', '/api/v1/clients')).body.data[0]!.id
    const q = `?client_id=${clientId}`
    const post = async (path: string, body: unknown) =>
      (await api<Data<{ id: string }>>(h, 'POST', path, body)).body.data
    const profile = (
      await api<Data<{ feedback: { urls: { mailgun: string } } }>>(
        h,
        'PUT',
        `/api/v1/clients/${clientId}/sending`,
        {
          feedback: { mailgun: { signing_key: SIGNING_KEY } },
        },
      )
    ).body.data
    const hook = new URL(profile.feedback.urls.mailgun).pathname
    await post(`/api/v1/webhooks${q}`, {
      url: `http://127.0.0.1:${receiver.port}/hook`,
      events: ['email.bounced'],
    })
    const list = await post(`/api/v1/lists${q}`, { name: 'Everyone' })
    progress(`sending ${fmt(2 * N)} messages (capture)`)
    const rows = ['email,first_name']
    for (let i = 0; i < 2 * N; i++) rows.push(`reader${i}@mailbox${i % 40}.example,Reader ${i}`)
    const job = (
      await api<Data<{ id: string }>>(
        h,
        'POST',
        `/api/v1/contacts/imports${q}&list_id=${list.id}`,
        rows.join('\n'),
        'text/csv',
      )
    ).body.data
    for (;;) {
      const s = (await api<Data<{ status: string }>>(h, 'GET', `/api/v1/contacts/imports/${job.id}`)).body
        .data.status
      if (s === 'completed') break
      if (s === 'failed') throw new BenchError('import failed')
      await Bun.sleep(50)
    }
    const campaign = await post(`/api/v1/campaigns${q}`, {
      name: 'Spring',
      list_id: list.id,
      subject: 'Spring offers, {{ contact.first_name }}',
      body_html: '<p>Hello {{ contact.first_name }}, our spring collection is here.</p>',
    })
    await api(h, 'POST', `/api/v1/campaigns/${campaign.id}/launch`, { confirm: true })
    for (;;) {
      const s = (await api<Data<{ status: string }>>(h, 'GET', `/api/v1/campaigns/${campaign.id}`)).body.data
        .status
      if (s === 'sent') break
      await Bun.sleep(100)
    }
    const sent: { to: string; message_id: string }[] = []
    let cursor: string | null = null
    do {
      const page: { data: { to: string; message_id: string }[]; pagination: { next_cursor: string | null } } =
        (
          await api<{
            data: { to: string; message_id: string }[]
            pagination: { next_cursor: string | null }
          }>(
            h,
            'GET',
            `/api/v1/messages?campaign_id=${campaign.id}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          )
        ).body
      sent.push(...page.data)
      cursor = page.pagination.next_cursor
    } while (cursor)
    if (sent.length !== 2 * N) throw new BenchError(`sent ${sent.length} of ${2 * N}`)

    const watch = new Database(join(dataDir, 'herald.db'), { readonly: true })
    const suppressed = watch.query<{ one: number }, [string]>(
      'SELECT 1 AS one FROM suppressions WHERE email = ?1',
    )
    const queued = watch.query<{ n: number }, []>(
      "SELECT count(*) AS n FROM webhook_deliveries WHERE event_type = 'email.bounced'",
    )
    const notify = async (m: { to: string; message_id: string }) => {
      const res = await fetch(`${h.base}${hook}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: mailgunFailed(m.to, m.message_id),
      })
      if (res.status !== 200) throw new BenchError(`the hook answered ${res.status}: ${await res.text()}`)
    }

    // One at a time: POST → suppression and webhook delivery queued.
    progress(`${fmt(N)} notifications, one at a time`)
    const latency: number[] = []
    for (const [i, m] of sent.slice(0, N).entries()) {
      const t0 = performance.now()
      await notify(m)
      while (!(await suppressed.get(m.to)) || (await queued.get())!.n < i + 1) {
        if (performance.now() - t0 > 30_000) throw new BenchError(`notification ${i} not in after 30 s`)
        await Bun.sleep(1)
      }
      latency.push(performance.now() - t0)
    }
    // A burst: the other N posted at once.
    progress(`${fmt(N)} notifications in one burst`)
    const b0 = performance.now()
    await Promise.all(sent.slice(N).map(notify))
    while ((await queued.get())!.n < 2 * N) {
      if (performance.now() - b0 > 60_000) throw new BenchError('the burst was not in after 60 s')
      await Bun.sleep(2)
    }
    const burstMs = performance.now() - b0
    watch.close()

    const p50 = percentile(latency, 50)
    const p99 = percentile(latency, 99)
    const met = p99 <= BAR_P99_MS
    console.log(`\nESP feedback, ${fmt(N)} Mailgun notifications, capture provider\n`)
    console.log('| measure | result | bar | met |\n|---|---|---|---|')
    console.log(
      `| notification → suppression and email.bounced delivery queued, p99 (p50, max) | ${fmt(p99, 1)} ms (${fmt(p50, 1)}, ${fmt(Math.max(...latency), 1)}) | ≤ ${BAR_P99_MS} ms | ${met ? 'yes' : '**no**'} |`,
    )
    console.log(
      `| a burst of ${fmt(N)} at once, all in | ${fmt(burstMs, 0)} ms (${fmt((N / burstMs) * 1000, 0)} /s) | (capacity) | yes |`,
    )
    console.log(
      JSON.stringify({
        notifications: N,
        p50_ms: p50,
        p99_ms: p99,
        max_ms: Math.max(...latency),
        burst_ms: burstMs,
      }),
    )
    return met
  } finally {
    receiver.stop(true)
    rmSync(dir, { recursive: true, force: true })
  }
}

runBench(main)
