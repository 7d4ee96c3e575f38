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
import { onlyLogin, startSink } from '../helpers/smtp-sink'

// Crash safety with sending profiles: the compiled binary sends two clients' campaigns at once,
// each through the client's own SMTP relay (its own AUTH credentials), and is killed with SIGKILL
// mid-send twice. Afterwards every recipient got its message from its own client's relay only,
// with its client's login, and any copy sent again carries the first copy's Message-ID.

const bin = useBinary('herald-profiles-crash-')
const serve = keyedServers(bin, `hrld_${'Crash0Profiles1Key2'.repeat(3)}`)
const CRASHES = 2
const EACH = 1500

/** A relay accepting only `user`/`pw-<user>`. */
const relay = (user: string) =>
  startSink({ disabledCommands: ['STARTTLS'], onAuth: onlyLogin(user, `pw-${user}`) })

test(`kill -9 ${CRASHES} times while two clients send through their own relays: nothing lost, nothing crosses`, async () => {
  const { dns, sink: instance, env } = await smtpWorld({ HERALD_SEND_CONCURRENCY: '64' })
  const relays = { alpha: await relay('alpha'), beta: await relay('beta') }
  const start = () => serve(join(bin.work, 'data'), env)

  let h = await start()
  const first = ((await h.call('GET', '/api/v1/clients')) as { id: string }[])[0]!.id
  const second = (await h.call('POST', '/api/v1/clients', { name: 'Beta' })).id as string
  const campaigns: string[] = []
  for (const [name, clientId] of [
    ['alpha', first],
    ['beta', second],
  ] as const) {
    await h.call('PUT', `/api/v1/clients/${clientId}/sending`, {
      email: {
        provider: 'smtp',
        smtp_url: `smtp://${name}:pw-${name}@127.0.0.1:${relays[name].port}`,
        pool: 3,
      },
    })
    const { q, list } = await sendingAudience(h.call, dns, {
      domain: `${name}.example`,
      from: 'news',
      fromName: name,
      contacts: EACH,
      prefix: name,
      importMs: 10_000,
      clientId,
    })
    const c = await h.call('POST', `/api/v1/campaigns${q}`, {
      name: 'Crash test',
      list_id: list.id,
      subject: 'Hello {{ contact.email }}',
      body_html: '<p>Hi</p><a href="https://news.example/offer">Offer</a>',
    })
    campaigns.push(c.id)
  }
  for (const id of campaigns) await h.call('POST', `/api/v1/campaigns/${id}/launch`, { confirm: true })

  const reached = () =>
    new Set([...relays.alpha.received, ...relays.beta.received].map((m) => m.rcptTo[0])).size
  h = await killDuring(h, start, {
    crashes: CRASHES,
    total: 2 * EACH,
    reached,
    what: 'recipients reached',
    timeoutMs: 30_000,
  })
  for (const id of campaigns)
    await until(
      async () => (await h.call('GET', `/api/v1/campaigns/${id}`)).status === 'sent',
      30_000,
      'sent',
    )

  for (const [name, sink] of Object.entries(relays)) {
    expect(sink.received.every((m) => m.rcptTo[0]!.startsWith(name) && m.user === name)).toBe(true)
    const ids = expectOneMessageIdEach(sink.received, (m) => m.rcptTo[0]!, EACH)
    for (const id of ids.values()) expect(id).toMatch(new RegExp(`^<[0-9a-f-]{36}@${name}\\.example>$`))
  }
  expect(instance.received).toEqual([])
  h.proc.kill('SIGTERM')
  expect(await h.proc.exited).toBe(0)
  await Promise.all([instance.close(), relays.alpha.close(), relays.beta.close()])
}, 120_000)
