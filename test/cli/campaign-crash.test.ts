import { afterAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { serveBinary, useBinary } from '../helpers/binary'
import { binaryApi, sendingAudience } from '../helpers/binary-api'
import { startDnsServer } from '../helpers/dns-server'
import { until } from '../helpers/receiver'
import { messageIdOf, startSink } from '../helpers/smtp-sink'

// Crash safety of the send queue (issue 5): the compiled binary sends a campaign over SMTP (DKIM
// signed, to a real smtp-server sink) and is killed with SIGKILL several times mid-send, then
// restarted. Afterwards every recipient got the message, and any duplicate carries the same
// Message-ID as the first copy, so receivers can drop it.

const bin = useBinary('herald-cmp-crash-')
const KEY = `hrld_${'Crash0Send1Key2'.repeat(3)}`
const CRASHES = 3
// Under a send rate a lane gets one batch a pass; at full speed the running loop claims a lane's
// next batch while the last one's sends are still in flight (two batches a lane), 64 at once.
const CASES: { name: string; recipients: number; env: Record<string, string> }[] = [
  { name: 'at HERALD_SEND_RATE=200', recipients: 400, env: { HERALD_SEND_RATE: '200' } },
  {
    name: 'at full speed, two batches of the lane in flight',
    recipients: 3000,
    env: { HERALD_SEND_CONCURRENCY: '64' },
  },
]
const running = new Set<Subprocess>()
afterAll(() => {
  for (const p of running) p.kill('SIGKILL') // a failed run leaves no server behind
})

for (const [i, c] of CASES.entries())
  test(`kill -9 ${CRASHES} times during a send ${c.name}: nobody is missed, duplicates share the Message-ID`, async () => {
    const RECIPIENTS = c.recipients
    const dns = await startDnsServer()
    const sink = await startSink({ disabledCommands: ['STARTTLS'] }) // plain SMTP on loopback
    const sinkUrl = `smtp://127.0.0.1:${sink.port}`
    const env = {
      ...process.env,
      HERALD_LOG: 'json',
      HERALD_BOOTSTRAP_API_KEY: KEY,
      HERALD_SMTP_URL: sinkUrl,
      HERALD_DNS_SERVERS: dns.address,
      ...c.env,
      // A just-verified domain would be held by the warm-up cap (50 on its first day).
      HERALD_WARMUP: 'off',
    } as Record<string, string>
    const data = join(bin.work, `data-${i}`)
    const start = async () => {
      const { proc, base } = await serveBinary(bin, data, env, 'ignore')
      running.add(proc)
      void proc.exited.then(() => running.delete(proc))
      return { proc, call: binaryApi(base, KEY).call }
    }

    let h = await start()
    const { q, list } = await sendingAudience(h.call, dns, {
      domain: 'news.example',
      from: 'offers',
      fromName: 'News',
      contacts: RECIPIENTS,
      prefix: 'r',
      importMs: 10_000,
    })
    const campaign = await h.call('POST', `/api/v1/campaigns${q}`, {
      name: 'Crash test',
      list_id: list.id,
      subject: 'Hello {{ contact.email }}',
      body_html: '<p>Hi</p><a href="https://news.example/offer">Offer</a>',
    })
    await h.call('POST', `/api/v1/campaigns/${campaign.id}/launch`, { confirm: true })

    const duplicatesPerCrash: number[] = []
    const reached = () => new Set(sink.received.map((m) => m.rcptTo[0])).size
    const duplicates = () => sink.received.length - reached()
    for (let crash = 1; crash <= CRASHES; crash++) {
      // Kill at 1/4, 2/4 and 3/4 of the audience, mid-send.
      const target = (RECIPIENTS * crash) / (CRASHES + 1)
      await until(() => reached() >= target, 20_000, `${target} recipients reached before kill ${crash}`)
      h.proc.kill('SIGKILL')
      await h.proc.exited
      const dupBefore = duplicates()
      h = await start()
      // Whatever was in flight at the kill is sent again after the restart.
      await Bun.sleep(300)
      duplicatesPerCrash.push(duplicates() - dupBefore)
    }
    await until(
      async () => (await h.call('GET', `/api/v1/campaigns/${campaign.id}`)).status === 'sent',
      30_000,
      'sent',
    )

    const byRecipient = new Map<string, Set<string | null>>()
    for (const m of sink.received) {
      const to = m.rcptTo[0]!
      byRecipient.set(to, (byRecipient.get(to) ?? new Set()).add(messageIdOf(m.raw)))
    }
    expect(byRecipient.size).toBe(RECIPIENTS)
    for (const [to, ids] of byRecipient) {
      expect(ids.size, `${to} got different Message-IDs`).toBe(1)
      expect([...ids][0]).toMatch(/^<[0-9a-f-]{36}@news\.example>$/)
    }
    const stats = await h.call('GET', `/api/v1/campaigns/${campaign.id}/stats`)
    expect(stats.delivered).toBe(RECIPIENTS)
    console.log(
      `campaign crash test: ${RECIPIENTS} recipients, ${CRASHES} kills; duplicates per crash: ${duplicatesPerCrash.join(', ')} (total ${duplicates()})`,
    )
    h.proc.kill('SIGTERM')
    expect(await h.proc.exited).toBe(0)
    await sink.close()
  }, 90_000)
