import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { serveBinary, storeOf, useBinary } from '../helpers/binary'
import { SHORT_LEASES } from '../helpers/binary-api'
import { startReceiver, until } from '../helpers/receiver'

// Crash safety of the webhook outbox: kill -9 the compiled binary while deliveries are pending
// (receiver down), restart it, bring the receiver up: every event arrives at least once.
const bin = useBinary('herald-whk-')
const work = bin.work
const KEY = `hrld_${'Crash0Test1Key2'.repeat(3)}`
const env = {
  ...process.env,
  HERALD_LOG: 'json',
  HERALD_BOOTSTRAP_API_KEY: KEY,
  HERALD_WEBHOOK_ALLOW_PRIVATE: '1',
  HERALD_WEBHOOK_RETRY_SCHEDULE: `0,${Array(40).fill('500ms').join(',')}`,
  // What the killed process had in flight is sent again once its lease runs out.
  ...SHORT_LEASES,
} as Record<string, string>

async function start(dataDir: string) {
  const { proc, base } = await serveBinary(bin, dataDir, env, 'ignore')
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected freely
    return { status: res.status, body: (await res.json()) as any }
  }
  return { proc, call }
}

test('kill -9 while deliveries are pending loses none', async () => {
  const data = join(work, 'data')
  const rx = startReceiver()
  await rx.down()
  const first = await start(data)
  const clientId = (await first.call('GET', '/api/v1/clients')).body.data[0].id
  const hook = await first.call('POST', `/api/v1/webhooks?client_id=${clientId}`, {
    url: rx.url,
    events: ['contact.unsubscribed'],
  })
  expect(hook.status).toBe(200)
  const secret: string = hook.body.data.secret

  const expected = new Set<string>()
  for (let i = 0; i < 30; i++) {
    const c = await first.call('POST', `/api/v1/contacts?client_id=${clientId}`, {
      email: `crash${i}@example.com`,
    })
    const r = await first.call('PATCH', `/api/v1/contacts/${c.body.data.id}`, { status: 'unsubscribed' })
    expect(r.status).toBe(200)
    expected.add(`con_${c.body.data.id.replaceAll('-', '')}`)
  }
  await Bun.sleep(300) // some deliveries attempted (refused), some still waiting
  first.proc.kill('SIGKILL')
  await first.proc.exited
  // The crash left work behind: attempts were made (refused) and nothing was delivered.
  const [state] = await storeOf(data)<{ attempts: number; done: number }>`
    SELECT (SELECT CAST(count(*) AS INTEGER) FROM webhook_attempts) AS attempts,
      (SELECT CAST(count(*) AS INTEGER) FROM webhook_deliveries WHERE status = 'succeeded') AS done`
  expect(state!.attempts).toBeGreaterThan(0)
  expect(state!.done).toBe(0)

  const second = await start(data)
  rx.up()
  const arrived = new Set<string>()
  const verifier = new Webhook(secret)
  await until(
    () => {
      for (const r of rx.received.splice(0)) {
        const payload = verifier.verify(r.body, r.headers) as { data: { contact_id: string } }
        arrived.add(payload.data.contact_id)
      }
      return arrived.size === expected.size
    },
    20_000,
    'every event after the restart',
  )
  expect([...arrived].sort()).toEqual([...expected].sort())
  second.proc.kill('SIGTERM')
  expect(await second.proc.exited).toBe(0)
  await rx.close()
}, 60_000)

test('kill -9 with requests in flight to the endpoint loses none; those in flight come again, same webhook-id', async () => {
  const data = join(work, 'data-inflight')
  const rx = startReceiver()
  // Until the kill the endpoint takes requests and never answers: they stay in flight.
  let answer = () => {}
  const held = new Promise<void>((resolve) => {
    answer = resolve
  })
  rx.respond = async () => {
    await held
    return new Response(null, { status: 204 })
  }
  const first = await start(data)
  const clientId = (await first.call('GET', '/api/v1/clients')).body.data[0].id
  const hook = await first.call('POST', `/api/v1/webhooks?client_id=${clientId}`, {
    url: rx.url,
    events: ['contact.unsubscribed'],
  })
  const secret: string = hook.body.data.secret
  const expected = new Set<string>()
  for (let i = 0; i < 40; i++) {
    const c = await first.call('POST', `/api/v1/contacts?client_id=${clientId}`, {
      email: `inflight${i}@example.com`,
    })
    await first.call('PATCH', `/api/v1/contacts/${c.body.data.id}`, { status: 'unsubscribed' })
    expected.add(`con_${c.body.data.id.replaceAll('-', '')}`)
  }
  // HERALD_WEBHOOK_CONCURRENCY (16 by default) requests open at once.
  await until(() => rx.received.length === 16, 10_000, 'the first requests in flight')
  first.proc.kill('SIGKILL')
  await first.proc.exited
  const inFlight = new Map(rx.received.splice(0).map((r) => [r.headers['webhook-id']!, r.body]))
  expect(inFlight.size).toBe(16)
  const [state] = await storeOf(data)<{ leased: number; done: number; attempts: number }>`
    SELECT CAST(count(CASE WHEN status = 'sending' THEN 1 END) AS INTEGER) AS leased,
      CAST(count(CASE WHEN status = 'succeeded' THEN 1 END) AS INTEGER) AS done,
      (SELECT CAST(count(*) AS INTEGER) FROM webhook_attempts) AS attempts
    FROM webhook_deliveries`
  expect(state!.leased).toBeGreaterThanOrEqual(16)
  expect(state!.done).toBe(0)
  expect(state!.attempts).toBe(0)
  answer()
  rx.respond = () => new Response(null, { status: 204 })

  const second = await start(data)
  const arrived = new Map<string, string>()
  const again = new Map<string, string>()
  const verifier = new Webhook(secret)
  await until(
    () => {
      for (const r of rx.received.splice(0)) {
        const payload = verifier.verify(r.body, r.headers) as { id: string; data: { contact_id: string } }
        arrived.set(payload.data.contact_id, payload.id)
        if (inFlight.has(payload.id)) again.set(payload.id, r.body)
      }
      return arrived.size === expected.size
    },
    20_000,
    'every event after the restart',
  )
  expect([...arrived.keys()].sort()).toEqual([...expected].sort())
  // Those that were in flight at the kill: sent again with the same webhook-id and body.
  expect(again).toEqual(inFlight)
  second.proc.kill('SIGTERM')
  expect(await second.proc.exited).toBe(0)
  await rx.close()
}, 60_000)
