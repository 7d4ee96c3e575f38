import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { serveBinary, useBinary } from '../helpers/binary'
import { readmeBlock, runReadmeBlock } from '../helpers/readme'

// README.md's "A walk through the API", run as a newcomer would: its shell block, with bash, curl
// and jq, against the built binary on a fresh data dir. Only the two lines a reader fills in are
// replaced: `KEY=` (the key printed on first run) and `BASE=` (where the server listens).

const root = join(import.meta.dir, '../..')
const bin = useBinary('herald-walk-')
const KEY = 'hrld_ReadmeWalk0123456789abcdef'

let server: Awaited<ReturnType<typeof serveBinary>> | undefined
afterAll(async () => {
  server?.proc.kill('SIGTERM')
  await server?.proc.exited
})

test('the README walk runs by copy-paste and exits 0', async () => {
  expect(Bun.which('jq'), 'the walk needs jq (apt-get install jq)').not.toBeNull()
  expect(Bun.which('curl'), 'the walk needs curl').not.toBeNull()

  const block = readmeBlock('A walk through the API')
  expect(block).not.toMatch(/<[a-z ]+ id>/) // no placeholder left for the reader to fill

  const env = { ...process.env, HERALD_LOG: 'json', HERALD_BOOTSTRAP_API_KEY: KEY } as Record<string, string>
  for (const name of ['HERALD_PUBLIC_URL', 'HERALD_DEFAULT_FROM', 'HERALD_EMAIL_PROVIDER', 'HERALD_SMTP_URL'])
    delete env[name]
  server = await serveBinary(bin, join(bin.work, 'data'), env, 'ignore')

  // The walk runs from a checkout: docs/contacts.csv beside it, export.csv written there.
  const cwd = join(bin.work, 'checkout')
  mkdirSync(cwd)
  symlinkSync(join(root, 'docs'), join(cwd, 'docs'))
  const { code, out, err } = await runReadmeBlock(block, {
    cwd,
    file: 'walk.sh',
    key: KEY,
    base: server.base,
  })
  expect(code, `walk failed:\n${out}\n${err}`).toBe(0)
  expect(err).toBe('')

  expect(out).toContain('{"status":"ok"')
  expect(out).toMatch(/^hrld_\w{20,}$/m) // the tenant key
  expect(out).toContain('{"email":"ann.lee@acme.example","phone":"+14155550100"}')
  expect(out).toContain('{"status":"completed","inserted":4,"errors":[]}')
  expect(out).toContain('{"member_count":5}')
  expect(out).toContain('{"total_recipients":5,"sent":5,"delivered":5}')
  expect(out).toContain(
    '{"to":"ann.lee@acme.example","from":"no-reply@herald.localhost","subject":"Hi Ann","body_text":"Your plan: pro"}',
  )
  const exported = readFileSync(join(cwd, 'export.csv'), 'utf8').trim().split('\n')
  expect(exported).toHaveLength(6) // header + Ann + the four sample rows
  expect(exported.join('\n')).toContain('"Lumière & Fils, SARL"')
}, 120_000)
