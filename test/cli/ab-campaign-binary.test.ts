import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { useBinary } from '../helpers/binary'
import { importedList, keyedServers } from '../helpers/binary-api'
import { until } from '../helpers/receiver'

// An A/B campaign on the compiled binary in capture mode: the test share goes out, readers open
// one variant through the real pixel, and the server is killed with SIGKILL as the decision
// comes due, then again just after it restarts. Afterwards the campaign is sent, the test was
// decided exactly once (for the opened variant), the rest got the winner's subject, and every
// recipient has exactly one message.

const bin = useBinary('herald-ab-binary-')
const serve = keyedServers(bin, `hrld_${'AbTest0Binary1Key2'.repeat(3)}`)
const RECIPIENTS = 60
const READER = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'

type Message = { id: string; contact_id: string; status: string; subject?: string; body_html?: string }

test('kill -9 as the A/B decision comes due: decided once, the rest get the winner, one message each', async () => {
  const data = join(bin.work, 'data')
  const start = () => serve(data, { HERALD_EMAIL_PROVIDER: 'capture' })
  let h = await start()
  const { q, list } = await importedList(h.call, RECIPIENTS)
  const campaign = await h.call('POST', `/api/v1/campaigns${q}`, {
    name: 'Subject test',
    list_id: list.id,
    subject: 'unused',
    body_html: '<p>Hello</p>',
    variants: [
      { name: 'Alpha', subject: 'Alpha subject' },
      { name: 'Beta', subject: 'Beta subject' },
    ],
    ab_test: { test_share: 0.5, metric: 'open_rate', duration: 'PT4S' },
  })
  await h.call('POST', `/api/v1/campaigns/${campaign.id}/launch`, { confirm: true })

  const messages = async (): Promise<Message[]> =>
    (await h.call('GET', `/api/v1/messages?campaign_id=${campaign.id}&limit=100`)) as Message[]
  const withContent = async () =>
    Promise.all((await messages()).map((m) => h.call('GET', `/api/v1/messages/${m.id}`) as Promise<Message>))
  await until(
    async () => (await messages()).filter((m) => m.status === 'delivered').length === RECIPIENTS / 2,
    10_000,
    'test share sent',
  )
  // Readers open 5 of Beta's 15 messages through the pixel; nobody opens Alpha.
  const beta = (await withContent()).filter((m) => m.subject === 'Beta subject')
  expect(beta).toHaveLength(15)
  for (const m of beta.slice(0, 5)) {
    const pixel = new URL(/src="([^"]+\/t\/o\/[^"]+)"/.exec(m.body_html!)![1]!)
    const r = await fetch(`${h.base}${pixel.pathname}`, { headers: { 'user-agent': READER } })
    expect(r.status).toBe(200)
  }

  const state = (await h.call('GET', `/api/v1/campaigns/${campaign.id}`)).ab_test_state
  expect(state.phase).toBe('testing')
  // Kill as the decision comes due, and again right after the restart (whose first job firing
  // decides at once): a decision is one transaction, so it is made once or not at all.
  await Bun.sleep(Math.max(0, Date.parse(state.decides_at) - Date.now()))
  for (let kill = 0; kill < 2; kill++) {
    await Bun.sleep(kill === 0 ? 0 : 150)
    h.proc.kill('SIGKILL')
    await h.proc.exited
    h = await start()
  }
  await until(
    async () => (await h.call('GET', `/api/v1/campaigns/${campaign.id}`)).status === 'sent',
    20_000,
    'sent',
  )
  const done = await h.call('GET', `/api/v1/campaigns/${campaign.id}`)
  expect(done.ab_test_state).toMatchObject({ phase: 'decided', winner: 'Beta', reason: 'metric' })
  const all = await withContent()
  expect(all).toHaveLength(RECIPIENTS)
  expect(new Set(all.map((m) => m.contact_id)).size).toBe(RECIPIENTS)
  expect(all.filter((m) => m.subject === 'Beta subject')).toHaveLength(45)
  expect(all.filter((m) => m.subject === 'Alpha subject')).toHaveLength(15)
  const stats = await h.call('GET', `/api/v1/campaigns/${campaign.id}/stats`)
  expect(stats.variants[1].at_decision).toMatchObject({ sent: 15, opened: 5 })
  // Another restart decides nothing again.
  h.proc.kill('SIGKILL')
  await h.proc.exited
  h = await start()
  await Bun.sleep(1500)
  expect((await h.call('GET', `/api/v1/campaigns/${campaign.id}`)).ab_test_state.decided_at).toBe(
    done.ab_test_state.decided_at,
  )
  h.proc.kill('SIGTERM')
  expect(await h.proc.exited).toBe(0)
}, 90_000)
