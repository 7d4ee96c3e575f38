import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { useBinary } from '../helpers/binary'
import {
  expectOneMessageIdEach,
  keyedServers,
  killDuring,
  sendingAudience,
  smtpWorld,
} from '../helpers/binary-api'
import { until } from '../helpers/receiver'

// Crash safety of the send queue (issue 5): the compiled binary sends a campaign over SMTP (DKIM
// signed, to a real smtp-server sink) and is killed with SIGKILL several times mid-send, then
// restarted. Afterwards every recipient got the message, and any duplicate carries the same
// Message-ID as the first copy, so receivers can drop it.

const bin = useBinary('herald-cmp-crash-')
const serve = keyedServers(bin, `hrld_${'Crash0Send1Key2'.repeat(3)}`)
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

for (const [i, c] of CASES.entries())
  test(`kill -9 ${CRASHES} times during a send ${c.name}: nobody is missed, duplicates share the Message-ID`, async () => {
    const RECIPIENTS = c.recipients
    const { dns, sink, env } = await smtpWorld(c.env)
    const data = join(bin.work, `data-${i}`)
    const start = () => serve(data, env)

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
    // Kill at 1/4, 2/4 and 3/4 of the audience, mid-send.
    h = await killDuring(
      h,
      async () => {
        const dupBefore = duplicates()
        const restarted = await start()
        // Whatever was in flight at the kill is sent again once its lease runs out (5 s here:
        // SHORT_LEASES), so these are the duplicates of the kill before, if any.
        await Bun.sleep(300)
        duplicatesPerCrash.push(duplicates() - dupBefore)
        return restarted
      },
      { crashes: CRASHES, total: RECIPIENTS, reached, what: 'recipients reached', timeoutMs: 20_000 },
    )
    await until(
      async () => (await h.call('GET', `/api/v1/campaigns/${campaign.id}`)).status === 'sent',
      30_000,
      'sent',
    )

    const ids = expectOneMessageIdEach(sink.received, (m) => m.rcptTo[0]!, RECIPIENTS)
    for (const id of ids.values()) expect(id).toMatch(/^<[0-9a-f-]{36}@news\.example>$/)
    const stats = await h.call('GET', `/api/v1/campaigns/${campaign.id}/stats`)
    expect(stats.delivered).toBe(RECIPIENTS)
    console.log(
      `campaign crash test: ${RECIPIENTS} recipients, ${CRASHES} kills; duplicates per crash: ${duplicatesPerCrash.join(', ')} (total ${duplicates()})`,
    )
    h.proc.kill('SIGTERM')
    expect(await h.proc.exited).toBe(0)
    await sink.close()
  }, 90_000)
