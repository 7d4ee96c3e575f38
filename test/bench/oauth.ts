// OAuth access tokens on the REST hot path: the same read (GET /api/v1/contacts?limit=1) with an
// API key and with an access token, interleaved request by request in one process, so machine
// load hits both alike. A token costs an Ed25519 signature check and one indexed grant look-up
// per request (no cache: revocation takes effect at once); an API key, a cached hash look-up.
// Reported, not a bar (DESIGN sets none): the token's per-request overhead and the ratio.
//
// `flock /tmp/herald-bench.lock bun run test/bench/oauth.ts [--samples N]`

import { parseArgs } from 'node:util'
import { withActor } from '../../src/context'
import { systemActor } from '../../src/services/actors/actor'
import { findOAuthClient } from '../../src/services/oauth/clients'
import { clientCredentials } from '../../src/services/oauth/grants'
import { createOAuthClientVerb } from '../../src/services/oauth/verbs'
import { invoke } from '../../src/services/verbs/invoke'
import { BASE, createTestApp } from '../helpers/app'

const { values } = parseArgs({ options: { samples: { type: 'string', default: '4000' } } })
const samples = Number(values.samples)

// Both credentials have the standard tier (600/min): the clock moves 100 ms at every read so
// neither bucket runs dry, and the token is minted afresh every 1000 samples, before it expires.
const clock = {
  t: Date.now(),
  now() {
    clock.t += 100
    return clock.t
  },
}
const t = await createTestApp({ clock })
try {
  const ctx = withActor(t.ctx, systemActor('bench'), 'bench')
  const created = await invoke(createOAuthClientVerb, ctx, {
    name: 'bench',
    redirect_uris: [],
    confidential: true,
    scopes: ['contacts:read'],
  })
  const mint = async () =>
    (await clientCredentials(t.ctx, (await findOAuthClient(t.ctx, created.id))!, {})).access_token
  let token = await mint()
  const key = await t.key({ scopes: ['contacts:read'], clientId: t.defaultClientId, tier: 'standard' })
  await t.call('POST', `/api/v1/contacts?client_id=${t.defaultClientId}`, {
    body: { email: 'a@example.com' },
  })

  const once = async (credential: string) => {
    const started = performance.now()
    const res = await t.app.handle(
      new Request(`${BASE}/api/v1/contacts?limit=1`, { headers: { authorization: `Bearer ${credential}` } }),
    )
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`status ${res.status}`)
    return performance.now() - started
  }
  for (let i = 0; i < 300; i++) {
    await once(key)
    await once(token)
  } // warm-up
  const keyMs: number[] = []
  const tokenMs: number[] = []
  for (let i = 0; i < samples; i++) {
    if (i % 1000 === 0) token = await mint()
    if (i % 2 === 0) {
      keyMs.push(await once(key))
      tokenMs.push(await once(token))
    } else {
      tokenMs.push(await once(token))
      keyMs.push(await once(key))
    }
  }
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!
  const k50 = pct(keyMs, 0.5)
  const t50 = pct(tokenMs, 0.5)
  console.log(`GET /api/v1/contacts?limit=1, ${samples} each, interleaved, in process`)
  console.log(`  API key      p50 ${k50.toFixed(3)} ms  p95 ${pct(keyMs, 0.95).toFixed(3)} ms`)
  console.log(`  OAuth token  p50 ${t50.toFixed(3)} ms  p95 ${pct(tokenMs, 0.95).toFixed(3)} ms`)
  console.log(
    `  token / key p50 ratio ${(t50 / k50).toFixed(2)}  (token overhead ${((t50 - k50) * 1000).toFixed(0)} µs)`,
  )
} finally {
  await t.close()
}
