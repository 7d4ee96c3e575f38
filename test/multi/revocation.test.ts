import { expect, setDefaultTimeout, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { useBinary } from '../helpers/binary'
import { keyedServers } from '../helpers/binary-api'
import { blankDatabase } from '../helpers/postgres'

// A key revoked, or a client suspended, through one process is refused by the other at once:
// each process remembers looked-up keys for a second, and a change signals the others to forget
// theirs when it commits.

setDefaultTimeout(120_000)
const bin = useBinary('herald-revoke-')
const serve = keyedServers(bin, `hrld_${'Revoke0Proc1Key2'.repeat(3)}`)

test('a key revoked on one process, and a suspended client, are refused by the other at once', async () => {
  const url = await blankDatabase()
  const shared = { HERALD_DATABASE_URL: url, HERALD_SECRET_KEY: randomBytes(32).toString('hex') }
  const a = await serve(join(bin.work, 'a'), shared)
  const b = await serve(join(bin.work, 'b'), shared)
  const get = (base: string, key: string) =>
    fetch(`${base}/api/v1/clients`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => {
      await r.arrayBuffer()
      return r.status
    })

  // The signal arrives beside the answer, not before it: looked for over 300 ms, well inside the
  // second a cached key would otherwise live.
  const soon = async (base: string, key: string, status: number) => {
    const until = performance.now() + 300
    let got = await get(base, key)
    while (got !== status && performance.now() < until) {
      await Bun.sleep(10)
      got = await get(base, key)
    }
    return got
  }

  const issued = await a.call('POST', '/api/v1/api-keys', { name: 'to revoke', scopes: ['admin:*'] })
  expect(await get(b.base, issued.key)).toBe(200) // b has it cached now
  await a.call('DELETE', `/api/v1/api-keys/${issued.id}`)
  expect(await soon(b.base, issued.key, 401)).toBe(401)

  const client = await a.call('POST', '/api/v1/clients', { name: 'Suspended soon' })
  const own = await a.call('POST', '/api/v1/api-keys', {
    name: 'tenant',
    scopes: ['admin:*'],
    client_id: client.id,
  })
  expect(await get(b.base, own.key)).toBe(200)
  await a.call('PATCH', `/api/v1/clients/${client.id}`, { status: 'suspended' })
  expect(await soon(b.base, own.key, 403)).toBe(403)
})
