import { afterAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { serveBinary, useBinary } from '../helpers/binary'
import { readmeBlock, runReadmeBlock } from '../helpers/readme'

// docs/api.md's OAuth example ("OAuth 2.1 authorization server"), run as pasted with bash, curl
// and jq against the built binary on a fresh data dir; only `KEY=` and `BASE=` are filled in.

const bin = useBinary('herald-readme-oauth-')
const KEY = 'hrld_ReadmeOAuth0123456789abcdef'

let server: Awaited<ReturnType<typeof serveBinary>> | undefined
afterAll(async () => {
  server?.proc.kill('SIGTERM')
  await server?.proc.exited
})

test('the docs/api.md OAuth example runs by copy-paste and prints what the page says', async () => {
  expect(Bun.which('jq'), 'the example needs jq').not.toBeNull()
  const block = readmeBlock('OAuth 2.1 authorization server', 'docs/api.md')

  const env = { ...process.env, HERALD_LOG: 'json', HERALD_BOOTSTRAP_API_KEY: KEY } as Record<string, string>
  delete env.HERALD_PUBLIC_URL
  server = await serveBinary(bin, join(bin.work, 'data'), env, 'ignore')
  const { code, out, err } = await runReadmeBlock(block, {
    cwd: bin.work,
    file: 'oauth.sh',
    key: KEY,
    base: server.base,
  })
  expect(code, `example failed:\n${out}\n${err}`).toBe(0)
  expect(err).toBe('')
  expect(out.trim().split('\n')).toEqual([
    '1',
    '{}',
    '401',
    '{"token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"]}',
  ])
}, 180_000)
