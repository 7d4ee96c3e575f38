import { expect, setDefaultTimeout, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { SQL } from 'bun'
import { Webhook } from 'standardwebhooks'
import { toPrefixedId } from '../../src/lib/ids'
import { useBinary } from '../helpers/binary'
import { keyedServers } from '../helpers/binary-api'
import { blankDatabase } from '../helpers/postgres'
import { startReceiver, until } from '../helpers/receiver'

// Two `herald serve` processes on one PostgreSQL database deliver to one webhook endpoint, one
// request at a time each (HERALD_WEBHOOK_CONCURRENCY=1), while events are made by requests to
// both alternately. One process at a time holds the endpoint's lane, so the endpoint receives
// every event once, in the order the events were written.

setDefaultTimeout(120_000)
const bin = useBinary('herald-whorder-')
const serve = keyedServers(bin, `hrld_${'Multi0Hook1Key2'.repeat(3)}`)

const EVENTS = 60

test('two processes deliver to one endpoint in event order, each event once', async () => {
  const url = await blankDatabase()
  const shared = {
    HERALD_DATABASE_URL: url,
    HERALD_SECRET_KEY: randomBytes(32).toString('hex'),
    HERALD_WEBHOOK_CONCURRENCY: '1',
    HERALD_WEBHOOK_ALLOW_PRIVATE: '1',
  }
  const [a, b] = await Promise.all([serve(join(bin.work, 'a'), shared), serve(join(bin.work, 'b'), shared)])
  const either = [a, b]

  // A receiver that takes a moment to answer: each process's request stays open long enough for
  // the other to start one of its own, if it could.
  const rx = startReceiver()
  rx.respond = async () => {
    await Bun.sleep(50)
    return new Response(null, { status: 204 })
  }
  const clientId = ((await a.call('GET', '/api/v1/clients')) as { id: string }[])[0]!.id
  const q = `?client_id=${clientId}`
  const hook = await b.call('POST', `/api/v1/webhooks${q}`, { url: rx.url, events: ['contact.unsubscribed'] })
  const verifier = new Webhook(hook.secret)

  const expected: string[] = []
  for (let i = 0; i < EVENTS; i++) {
    const p = either[i % 2]!
    const c = await p.call('POST', `/api/v1/contacts${q}`, { email: `order${i}@example.com` })
    await p.call('PATCH', `/api/v1/contacts/${c.id}`, { status: 'unsubscribed' })
    expected.push(toPrefixedId('contact', c.id))
  }

  const arrived: { id: string; createdAt: string; contact: string }[] = []
  await until(
    () => {
      for (const r of rx.received.splice(0)) {
        const payload = verifier.verify(r.body, r.headers) as {
          id: string
          created_at: string
          data: { contact_id: string }
        }
        arrived.push({ id: payload.id, createdAt: payload.created_at, contact: payload.data.contact_id })
      }
      return arrived.length >= EVENTS
    },
    60_000,
    'every event at the endpoint',
  )
  // A moment more: a copy sent twice would have arrived by now.
  await Bun.sleep(500)
  expect(rx.received).toHaveLength(0)
  if (arrived.some((r, i) => r.contact !== expected[i])) await showDeliveries(url)
  expect(arrived.map((r) => r.contact)).toEqual(expected)
  expect(new Set(arrived.map((r) => r.id)).size).toBe(EVENTS)
  const times = arrived.map((r) => Date.parse(r.createdAt))
  expect(times).toEqual([...times].sort((x, y) => x - y))
  await rx.close()
})

/** What the database says of each delivery, printed when the order is wrong: to find out why. */
async function showDeliveries(url: string) {
  const db = new SQL({ url, max: 1 })
  try {
    const rows =
      await db`SELECT d.id, e.seq, d.created_at, d.next_attempt_at, d.completed_at, d.attempts, d.status
      FROM webhook_deliveries d JOIN events e ON e.id = d.event_id ORDER BY e.seq`
    console.log('deliveries in event order:', JSON.stringify(rows))
    console.log('lanes:', JSON.stringify(await db`SELECT * FROM webhook_lanes`))
  } finally {
    await db.close()
  }
}
